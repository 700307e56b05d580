package tools

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestBash(t *testing.T) {
	env := newEnv(t)
	tests := []struct {
		name    string
		command string
		limit   int
		want    string
		wantErr bool
	}{
		{"output", "echo hello", 0, "hello", false},
		{"no output", "true", 0, "(no output)", false},
		{"stderr is combined and the exit code reported", "echo out; echo err >&2; exit 3", 0, "out\nerr\nExit code 3", true},
		{"exit code without output", "exit 7", 0, "Exit code 7", true},
		{"runs in the working directory", "pwd", 0, env.Cwd, false},
		{"stdin is empty", "cat; echo done", 0, "done", false},
		{"bash features", `a=(x y z); echo "${#a[@]}"`, 0, "3", false},
		{"killed by a signal", "kill -9 $$", 0, "Command was killed by SIGKILL.", true},
		{"output cap keeps head and tail", "printf 'HEAD'; head -c 1000 /dev/zero | tr '\\0' x; printf 'TAIL'", 40,
			"HEADxxxxxxxxxxxxxxxx\n... [968 bytes omitted] ...\nxxxxxxxxxxxxxxxxTAIL", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env.OutputLimit = tt.limit
			res := run(t, env, "Bash", map[string]any{"command": tt.command, "description": "test"})
			want := Result{Text: tt.want, IsError: tt.wantErr}
			if diff := cmp.Diff(want, res); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestBashInputErrors(t *testing.T) {
	env := newEnv(t)
	for _, tt := range []struct {
		input any
		want  string
	}{
		{map[string]any{"command": "  "}, "Bash: command is required"},
		{map[string]any{"command": "true", "timeout": -5}, "Bash: timeout must be a positive number of milliseconds"},
		{map[string]any{"command": "true", "shell": "zsh"}, `Bash: unknown input field "shell" (accepted: command, timeout, description, run_in_background, dangerouslyDisableSandbox)`},
		// Without the session's task owner, nothing starts in the background.
		{map[string]any{"command": "true", "run_in_background": true}, "Bash: background commands are not available here; run the command without run_in_background"},
	} {
		res := run(t, env, "Bash", tt.input)
		if !res.IsError || res.Text != tt.want {
			t.Errorf("%v: %+v", tt.input, res)
		}
	}
}

func TestBashTimeout(t *testing.T) {
	for _, tt := range []struct {
		ms   int
		want time.Duration
	}{
		{0, 2 * time.Minute},
		{1500, 1500 * time.Millisecond},
		{600000, 10 * time.Minute},
		{600001, 10 * time.Minute},
		{math.MaxInt, 10 * time.Minute},
	} {
		if got := bashTimeout(tt.ms); got != tt.want {
			t.Errorf("bashTimeout(%d) = %v, want %v", tt.ms, got, tt.want)
		}
	}
}

// The title is the command itself, shortened only with a visible marker,
// and the whole command is in Detail: approving `echo ok` must not run a
// second line, nor a 100-character prefix hide the tail of a command.
func TestBashDescribe(t *testing.T) {
	env := newEnv(t)
	tool, _ := ByName(Builtin(), "Bash")
	hiddenTail := strings.Repeat("a", 130) + "; touch hidden-tail.txt"
	for _, tt := range []struct {
		input any
		want  Description
	}{
		{map[string]any{"command": "go test ./...", "description": "Run the tests"},
			Description{Title: "go test ./...", Detail: "```sh\ngo test ./...\n```\n\nRun the tests"}},
		{map[string]any{"command": "go test ./..."}, Description{Title: "go test ./...", Detail: "```sh\ngo test ./...\n```"}},
		{map[string]any{"command": "echo ok\ntouch second-line.txt", "description": "Say ok"},
			Description{Title: "echo ok …(+1 line)", Detail: "```sh\necho ok\ntouch second-line.txt\n```\n\nSay ok"}},
		{map[string]any{"command": "cd x\nmake all\nmake install"}, Description{Title: "cd x …(+2 lines)", Detail: "```sh\ncd x\nmake all\nmake install\n```"}},
		{map[string]any{"command": hiddenTail}, Description{Title: strings.Repeat("a", 119) + "…", Detail: "```sh\n" + hiddenTail + "\n```"}},
		{map[string]any{"command": "echo '```'"}, Description{Title: "echo '```'", Detail: "````sh\necho '```'\n````"}},
		{map[string]any{}, Description{Title: "Bash"}},
	} {
		d := tool.Describe(env, raw(t, tt.input))
		if diff := cmp.Diff(tt.want, d); diff != "" {
			t.Errorf("%v (-want +got):\n%s", tt.input, diff)
		}
	}
}

func TestBashTerminal(t *testing.T) {
	tests := []struct {
		name      string
		terms     *fakeTerminals
		timeout   int
		cancel    bool
		wantCalls []string
		want      Result
	}{
		{
			name:      "success",
			terms:     &fakeTerminals{exit: ExitStatus{ExitCode: ptr(0)}, output: "built\n"},
			wantCalls: []string{"create bash [\"-c\" \"make\"] CWD 30000", "progress term-1", "wait term-1", "output term-1", "release term-1"},
			want:      Result{Text: "built", TerminalID: "term-1"},
		},
		{
			name:      "failure with truncated output",
			terms:     &fakeTerminals{exit: ExitStatus{ExitCode: ptr(2)}, output: "...end of log\n", truncated: true},
			wantCalls: []string{"create bash [\"-c\" \"make\"] CWD 30000", "progress term-1", "wait term-1", "output term-1", "release term-1"},
			want:      Result{Text: "[earlier output was truncated]\n...end of log\nExit code 2", IsError: true, TerminalID: "term-1"},
		},
		{
			name:      "signal",
			terms:     &fakeTerminals{exit: ExitStatus{Signal: "SIGSEGV"}},
			wantCalls: []string{"create bash [\"-c\" \"make\"] CWD 30000", "progress term-1", "wait term-1", "output term-1", "release term-1"},
			want:      Result{Text: "Command was killed by SIGSEGV.", IsError: true, TerminalID: "term-1"},
		},
		{
			name:      "timeout kills then releases",
			terms:     &fakeTerminals{block: true, output: "partial\n"},
			timeout:   20,
			wantCalls: []string{"create bash [\"-c\" \"make\"] CWD 30000", "progress term-1", "wait term-1", "kill term-1", "output term-1", "release term-1"},
			want:      Result{Text: "partial\nCommand timed out after 20ms and was killed.", IsError: true, TerminalID: "term-1"},
		},
		{
			name:      "cancellation kills then releases",
			terms:     &fakeTerminals{block: true},
			cancel:    true,
			wantCalls: []string{"create bash [\"-c\" \"make\"] CWD 30000", "progress term-1", "wait term-1", "kill term-1", "output term-1", "release term-1"},
			want:      Result{Text: "Command was cancelled and killed.", IsError: true, TerminalID: "term-1"},
		},
		{
			// The command exited 0 just as the cancel came: the kill
			// found nothing, and the result says what really happened.
			name:      "cancellation after a clean exit keeps the result",
			terms:     &fakeTerminals{block: true, output: "deployed\n", outputExit: &ExitStatus{ExitCode: ptr(0)}},
			cancel:    true,
			wantCalls: []string{"create bash [\"-c\" \"make\"] CWD 30000", "progress term-1", "wait term-1", "kill term-1", "output term-1", "release term-1"},
			want:      Result{Text: "deployed", TerminalID: "term-1"},
		},
		{
			name:      "cancellation of a command the kill stopped",
			terms:     &fakeTerminals{block: true, outputExit: &ExitStatus{Signal: "SIGKILL"}},
			cancel:    true,
			wantCalls: []string{"create bash [\"-c\" \"make\"] CWD 30000", "progress term-1", "wait term-1", "kill term-1", "output term-1", "release term-1"},
			want:      Result{Text: "Command was cancelled and killed.", IsError: true, TerminalID: "term-1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t)
			env.Terminals = tt.terms
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			env.Progress = func(r Result) {
				tt.terms.record("progress %s", r.TerminalID)
				if tt.cancel {
					cancel()
				}
			}
			input := map[string]any{"command": "make"}
			if tt.timeout > 0 {
				input["timeout"] = tt.timeout
			}
			res := runCtx(t, ctx, env, "Bash", input)
			if diff := cmp.Diff(tt.want, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			var want []string
			for _, c := range tt.wantCalls {
				want = append(want, strings.ReplaceAll(c, "CWD", env.Cwd))
			}
			if diff := cmp.Diff(want, tt.terms.calls); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			if tt.terms.releaseCtxErr != nil || !tt.terms.releaseHasDeadline {
				t.Errorf("Release got a context with err %v, deadline %v; want a live, bounded one", tt.terms.releaseCtxErr, tt.terms.releaseHasDeadline)
			}
		})
	}
}
