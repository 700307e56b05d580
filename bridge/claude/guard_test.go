package claude

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/cordis-agent/cordis/bridge/internal/guard"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/sessionlog"
)

// recorded collects what a bridge writes through Input.Record.
type recorded struct{ failures []guard.ErrorRecord }

func (r *recorded) input(in *hooks.Input) *hooks.Input {
	in.Record = func(typ string, data any) {
		if f, ok := data.(guard.ErrorRecord); ok && typ == sessionlog.TypeHookError {
			r.failures = append(r.failures, f)
		}
	}
	return in
}

// TestGuardThatCouldNotRun: a PreToolUse or PermissionRequest hook that
// times out or whose program is missing has no say, as in Claude Code
// (the call proceeds), but the user is told which hook and what happened
// and a hook/error is recorded; with guardFailure: deny the call is
// refused. A hook of another event that times out is not a guard.
func TestGuardThatCouldNotRun(t *testing.T) {
	hang := filepath.Join(testdataDir(t), "hang.sh")
	cases := []struct {
		ev      hooks.Event
		command string
		timeout float64
		why     string
	}{
		{hooks.PreToolUse, hang, 0.3, "timed out after 300ms"},
		{hooks.PermissionRequest, "/nonexistent/guard.py", 0, "its program was not found (exit status 127)"},
	}
	for _, c := range cases {
		for _, policy := range []guard.Policy{"", guard.Proceed, guard.Deny} {
			t.Run(string(c.ev)+"/"+cmp.Or(string(policy), "unset"), func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "hooks.json")
				writeSettings(t, path, map[hooks.Event][]groupSpec{c.ev: {{Matcher: "Bash", Hooks: []hookSpec{
					{Type: "command", Command: c.command, Timeout: c.timeout},
					cmd("cat >/dev/null; echo '{\"systemMessage\":\"the other hook ran\"}'"),
				}}}})
				b := New(Config{Path: path, GuardFailure: policy}, Options{Grace: 100 * time.Millisecond})
				var rec recorded
				d, err := b.Run(context.Background(), rec.input(inputFor(c.ev, t.TempDir())))
				if err != nil {
					t.Fatal(err)
				}
				if len(d.SystemMessages) != 2 || d.SystemMessages[1] != "the other hook ran" {
					t.Fatalf("messages %q", d.SystemMessages)
				}
				msg := d.SystemMessages[0]
				head := "The Claude " + string(c.ev) + " hook `" + c.command + "` (" + path + ") could not run: " + c.why + "."
				if !strings.HasPrefix(msg, head) {
					t.Errorf("message %q, want it to start %q", msg, head)
				}
				if policy == guard.Deny {
					if d.Permission != hooks.Deny || !strings.Contains(d.Reason, "could not run ("+c.why+")") || !strings.Contains(msg, "The Bash call is refused (guardFailure: deny)") {
						t.Errorf("guardFailure: deny: %+v", d)
					}
				} else if d.Permission != hooks.NoOpinion || !strings.Contains(msg, "As in Claude Code, the Bash call goes on as if the hook had not run") {
					t.Errorf("default policy: %+v", d)
				}
				if len(rec.failures) != 1 || rec.failures[0].Command != c.command || rec.failures[0].Source != path || rec.failures[0].Error != c.why {
					t.Errorf("hook/error records %+v", rec.failures)
				}
			})
		}
	}

	// Not a guard: a Stop hook that times out stays a plain failure.
	b := New(Config{GuardFailure: guard.Deny, Path: writeTemp(t, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "`+hang+`", "timeout": 0.3}]}]}}`)},
		Options{Grace: 100 * time.Millisecond})
	var rec recorded
	d, err := b.Run(context.Background(), rec.input(inputFor(hooks.Stop, t.TempDir())))
	if err != nil || !isZero(d) || len(rec.failures) != 1 || !strings.Contains(rec.failures[0].Error, "timed out") {
		t.Errorf("Stop: %+v, %v, %+v", d, err, rec.failures)
	}
}

func writeTemp(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hooks.json")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestGuardFailureConfig: cordis.yml accepts proceed and deny and
// rejects anything else, naming the line.
func TestGuardFailureConfig(t *testing.T) {
	for text, want := range map[string]guard.Policy{"{}": "", "guardFailure: proceed": guard.Proceed, "guardFailure: deny": guard.Deny} {
		var c Config
		if err := yaml.Unmarshal([]byte(text), &c); err != nil || c.GuardFailure != want {
			t.Errorf("%s: %q, %v", text, c.GuardFailure, err)
		}
	}
	var c Config
	err := yaml.Unmarshal([]byte("path: x\nguardFailure: Deny\n"), &c)
	if err == nil || !strings.Contains(err.Error(), `line 2: guardFailure must be "proceed" (the default) or "deny", got "Deny"`) {
		t.Errorf("a mistyped policy: %v", err)
	}
}

// TestBrokenHookFilesAreReported: a bad matcher, a mistyped field and a
// file that does not parse, in each kind of Claude hook file, are shown
// to the session once (naming the file, the entry or the line and
// column) and listed by Doctor; the good hooks of the same file still
// run.
func TestBrokenHookFilesAreReported(t *testing.T) {
	const good = `{"type": "command", "command": "cat >/dev/null; echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"good guard\"}}'"}`
	shapes := []struct {
		name, content, problem string
		goodRuns               bool
	}{
		{"bad matcher", `{"hooks": {"PreToolUse": [
			{"matcher": "Bash(", "hooks": [{"type": "command", "command": "exit 2"}]},
			{"matcher": "Bash", "hooks": [` + good + `]}]}}`,
			`hooks.PreToolUse[0]: matcher "Bash(" is not a valid regular expression`, true},
		{"mistyped field", `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
			{"type": "command", "command": "exit 2", "timeout": "30"},
			` + good + `]}]}}`,
			`hooks.PreToolUse[0].hooks[0]: bad hook: "timeout" must be a number, got string; skipped`, true},
		{"trailing comma", `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [` + good + `,]}]}}`,
			`:1:`, false},
	}
	files := []struct {
		name string
		// place writes content and returns the file and a bridge (and its
		// session cwd) that reads it.
		place func(t *testing.T, content string) (path string, b *Bridge, cwd string)
	}{
		{"settings.json", func(t *testing.T, content string) (string, *Bridge, string) {
			home := t.TempDir()
			path := filepath.Join(home, ".claude", "settings.json")
			writeRaw(t, path, content)
			b, _ := standardBridge(t, home)
			return path, b, t.TempDir()
		}},
		{"settings.local.json", func(t *testing.T, content string) (string, *Bridge, string) {
			home, cwd := t.TempDir(), t.TempDir()
			path := filepath.Join(cwd, ".claude", "settings.local.json")
			writeRaw(t, path, content)
			b, _ := standardBridge(t, home)
			trustProject(t, b, cwd)
			return path, b, cwd
		}},
		{"hooks.json", func(t *testing.T, content string) (string, *Bridge, string) {
			path := filepath.Join(t.TempDir(), "hooks.json")
			writeRaw(t, path, content)
			return path, New(Config{Path: path}, Options{}), t.TempDir()
		}},
	}
	for _, f := range files {
		for _, s := range shapes {
			t.Run(f.name+"/"+s.name, func(t *testing.T) {
				path, b, cwd := f.place(t, s.content)
				ctx := context.Background()
				in := turnInput(hooks.PreToolUse, cwd, "s1")
				if !b.Applies(in) {
					t.Fatal("Applies = false with a problem to report")
				}
				d, err := b.Run(ctx, in)
				if s.goodRuns && (err != nil || d.Permission != hooks.Deny || d.Reason != "good guard") {
					t.Errorf("the good hook of the file did not decide: %+v, %v", d, err)
				}
				if len(d.SystemMessages) != 1 || !strings.Contains(d.SystemMessages[0], "cordis found a problem in a Claude hook file: "+path) ||
					!strings.Contains(d.SystemMessages[0], s.problem) {
					t.Errorf("messages %q, want one naming %s and %q", d.SystemMessages, path, s.problem)
				}
				if !s.goodRuns && !strings.Contains(d.SystemMessages[0], path+":1:") {
					t.Errorf("no line and column: %q", d.SystemMessages)
				}
				// Once per session, again in another.
				if d, _ := b.Run(ctx, in); len(d.SystemMessages) != 0 {
					t.Errorf("second call: %q", d.SystemMessages)
				}
				if d, _ := b.Run(ctx, turnInput(hooks.PreToolUse, cwd, "s2")); len(d.SystemMessages) != 1 {
					t.Errorf("other session: %q", d.SystemMessages)
				}
				var lines []string
				for _, l := range b.Doctor(cwd) {
					if strings.HasPrefix(l, "✗ Claude hooks "+path) && strings.Contains(l, s.problem) {
						lines = append(lines, l)
					}
				}
				if len(lines) != 1 {
					t.Errorf("Doctor = %q, want one line naming the problem", b.Doctor(cwd))
				}
			})
		}
	}
}

func writeRaw(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
