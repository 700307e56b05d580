package claude

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/bridge/internal/rendering"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/internal/trust"
)

// standardBridge returns a bridge on the standard files with home as the
// user's home and a trust store of its own, logging into the returned
// buffer.
func standardBridge(t *testing.T, home string) (*Bridge, *bytes.Buffer) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&syncWriter{w: &buf}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return New(Config{}, Options{Home: home, Logger: log, Trust: trust.Open(t.TempDir())}), &buf
}

// trustProject does what `cordis hooks trust --cwd cwd` does, in b's
// store: the project files' hooks, as they are now, run.
func trustProject(t testing.TB, b *Bridge, cwd string) {
	t.Helper()
	for _, d := range discover(b.dialect.userDir, b.dialect.home, cwd) {
		if err := b.trust.Trust(d); err != nil {
			t.Fatal(err)
		}
	}
}

func echoGroup(text string) []groupSpec {
	return []groupSpec{{Hooks: []hookSpec{cmd("cat >/dev/null; echo " + text)}}}
}

func TestStandardFilesMergeInOrder(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	writeSettings(t, filepath.Join(home, ".claude", "settings.json"), map[hooks.Event][]groupSpec{hooks.UserPromptSubmit: echoGroup("user")})
	writeSettings(t, filepath.Join(cwd, ".claude", "settings.json"), map[hooks.Event][]groupSpec{hooks.UserPromptSubmit: echoGroup("project")})
	writeSettings(t, filepath.Join(cwd, ".claude", "settings.local.json"), map[hooks.Event][]groupSpec{
		hooks.UserPromptSubmit: append(echoGroup("local"), echoGroup("user")...), // a duplicate of the user hook runs once
	})
	b, _ := standardBridge(t, home)
	trustProject(t, b, cwd)
	d, err := b.Run(context.Background(), inputFor(hooks.UserPromptSubmit, cwd))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"user", "project", "local"}, d.AdditionalContext); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	// Another cwd sees only the user's hooks.
	d, _ = b.Run(context.Background(), inputFor(hooks.UserPromptSubmit, t.TempDir()))
	if diff := cmp.Diff([]string{"user"}, d.AdditionalContext); diff != "" {
		t.Fatalf("other cwd (-want +got):\n%s", diff)
	}
	if p := b.Problems(); len(p) != 0 {
		t.Fatalf("problems: %v", p)
	}
}

func TestMissingFilesAreANoOp(t *testing.T) {
	b, logs := standardBridge(t, t.TempDir())
	for _, ev := range supportedEvents {
		in := inputFor(ev, t.TempDir())
		if b.Applies(in) {
			t.Errorf("%s: Applies with no files", ev)
		}
		d, err := b.Run(context.Background(), in)
		if err != nil || !isZero(d) {
			t.Errorf("%s: %+v, %v", ev, d, err)
		}
	}
	if len(b.Problems()) != 0 {
		t.Fatalf("problems: %v", b.Problems())
	}
	if strings.Contains(logs.String(), "level=WARN") || strings.Contains(logs.String(), "level=ERROR") {
		t.Fatalf("standard files missing should log at debug only:\n%s", logs)
	}

	// An explicit path that does not exist registers nothing and warns.
	var buf bytes.Buffer
	eb := New(Config{Path: filepath.Join(t.TempDir(), "nope.json")}, Options{Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	var r recorder
	eb.Register(&r)
	if len(r.events) != 0 {
		t.Fatalf("registered %v for a missing file", r.events)
	}
	if !strings.Contains(buf.String(), "hook file not found") {
		t.Fatalf("no warning:\n%s", buf.String())
	}
}

type recorder struct {
	events []hooks.Event
	hooks  []hooks.Hook
}

func (r *recorder) Register(ev hooks.Event, h hooks.Hook, _ hooks.RegisterOptions) {
	r.events = append(r.events, ev)
	r.hooks = append(r.hooks, h)
}

func TestRegisterEveryEvent(t *testing.T) {
	b := bridgeWith(t, hooks.Stop, cmd("true"))
	var r recorder
	b.Register(&r)
	if diff := cmp.Diff(supportedEvents, r.events); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	for i, h := range r.hooks {
		if h.Name() != "bridge/claude" {
			t.Fatalf("name %q", h.Name())
		}
		a := h.(hooks.Applicable)
		if got, want := a.Applies(inputFor(r.events[i], t.TempDir())), r.events[i] == hooks.Stop; got != want {
			t.Errorf("%s: Applies = %v", r.events[i], got)
		}
	}
}

func TestMalformedFileOthersStillLoad(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	writeSettings(t, filepath.Join(home, ".claude", "settings.json"), map[hooks.Event][]groupSpec{hooks.UserPromptSubmit: echoGroup("user")})
	bad := filepath.Join(cwd, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(bad), 0o755)
	if err := os.WriteFile(bad, []byte("{\n  \"hooks\": {\n    \"Stop\": [,]\n  }\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeSettings(t, filepath.Join(cwd, ".claude", "settings.local.json"), map[hooks.Event][]groupSpec{hooks.UserPromptSubmit: echoGroup("local")})
	b, logs := standardBridge(t, home)
	trustProject(t, b, cwd)
	d, err := b.Run(context.Background(), inputFor(hooks.UserPromptSubmit, cwd))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"user", "local"}, d.AdditionalContext); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	probs := b.Problems()
	if len(probs) != 1 || !strings.Contains(probs[0], bad+":3:") || !strings.Contains(probs[0], "malformed JSON") {
		t.Fatalf("problems: %q", probs)
	}
	if n := strings.Count(logs.String(), "malformed JSON"); n != 1 {
		t.Fatalf("logged %d times:\n%s", n, logs)
	}
	// Logged once per version of the file.
	b.Run(context.Background(), inputFor(hooks.UserPromptSubmit, cwd))
	if n := strings.Count(logs.String(), "malformed JSON"); n != 1 {
		t.Fatalf("logged %d times after a second run", n)
	}
	// Fixing the file is picked up (mtime/size change); its hook is new,
	// so it runs once trusted.
	writeSettings(t, bad, map[hooks.Event][]groupSpec{hooks.UserPromptSubmit: echoGroup("project")})
	trustProject(t, b, cwd)
	d, _ = b.Run(context.Background(), inputFor(hooks.UserPromptSubmit, cwd))
	if diff := cmp.Diff([]string{"user", "project", "local"}, d.AdditionalContext); diff != "" {
		t.Fatalf("after fix (-want +got):\n%s", diff)
	}
	if len(b.Problems()) != 0 {
		t.Fatalf("problems after fix: %v", b.Problems())
	}
}

func TestReloadOnChange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hooks.json")
	writeSettings(t, path, map[hooks.Event][]groupSpec{hooks.UserPromptSubmit: echoGroup("one")})
	b := New(Config{Path: path}, Options{})
	in := inputFor(hooks.UserPromptSubmit, t.TempDir())
	d, _ := b.Run(context.Background(), in)
	if diff := cmp.Diff([]string{"one"}, d.AdditionalContext); diff != "" {
		t.Fatal(diff)
	}
	writeSettings(t, path, map[hooks.Event][]groupSpec{hooks.UserPromptSubmit: echoGroup("two")})
	future := time.Now().Add(time.Hour)
	os.Chtimes(path, future, future)
	d, _ = b.Run(context.Background(), in)
	if diff := cmp.Diff([]string{"two"}, d.AdditionalContext); diff != "" {
		t.Fatal(diff)
	}
	os.Remove(path)
	d, err := b.Run(context.Background(), in)
	if err != nil || !isZero(d) {
		t.Fatalf("after removal: %+v %v", d, err)
	}
}

func TestSettingsProblemsAndWarnings(t *testing.T) {
	data := `{
  "model": "ignored: other settings are fine",
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash(", "hooks": [{"type": "command", "command": "a"}]},
      {"matcher": "Bash", "hooks": [
        {"type": "prompt", "prompt": "is this ok?"},
        {"type": "agent"},
        {"type": "command"},
        {"type": "webhook", "command": "x"},
        {"command": "y"},
        {"type": "command", "command": "z", "timeout": "30"},
        {"type": "command", "command": "ok", "timeout": 5},
        {"type": "command", "command": "ps", "shell": "powershell"}
      ]}
    ],
    "PostToolBatch": [{"hooks": [{"type": "command", "command": "b"}]}],
    "PreToolUs": [{"hooks": [{"type": "command", "command": "c"}]}],
    "Stop": {"not": "a list"}
  }
}`
	s, err := parseSettings("f.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	wantProblems := []string{
		`f.json: hooks.PreToolUs: unknown event`,
		`f.json: hooks.PreToolUse[0]: matcher "Bash(" is not a valid regular expression`,
		`f.json: hooks.PreToolUse[1].hooks[2]: the hook has no "command"`,
		`f.json: hooks.PreToolUse[1].hooks[3]: unknown hook type "webhook"`,
		`f.json: hooks.PreToolUse[1].hooks[4]: the hook has no "type"`,
		`f.json: hooks.PreToolUse[1].hooks[5]: bad hook`,
		`f.json: hooks.Stop must be a list`,
	}
	if len(s.problems) != len(wantProblems) {
		t.Fatalf("problems:\n%s", strings.Join(s.problems, "\n"))
	}
	for i, w := range wantProblems {
		if !strings.HasPrefix(s.problems[i], w) {
			t.Errorf("problem %d = %q, want prefix %q", i, s.problems[i], w)
		}
	}
	wantWarnings := []string{`hooks.PostToolBatch: cordis has no PostToolBatch event`, `type "prompt"`, `type "agent"`, `shell "powershell"`}
	if len(s.warnings) != len(wantWarnings) {
		t.Fatalf("warnings:\n%s", strings.Join(s.warnings, "\n"))
	}
	for _, w := range wantWarnings {
		found := false
		for _, got := range s.warnings {
			found = found || strings.Contains(got, w)
		}
		if !found {
			t.Errorf("no warning containing %q in %q", w, s.warnings)
		}
	}
	groups := s.events[hooks.PreToolUse]
	if len(groups) != 1 || len(groups[0].hooks) != 1 || groups[0].hooks[0].command != "ok" || groups[0].hooks[0].timeout != 5*time.Second {
		t.Fatalf("kept: %+v", groups)
	}
}

func TestMalformedShapes(t *testing.T) {
	for _, data := range []string{`[]`, `{"hooks": []}`, `{"hooks": 3}`, `{"hooks":`, `{"disableAllHooks": "yes"}`} {
		if _, err := parseSettings("f.json", []byte(data)); err == nil {
			t.Errorf("%s: no error", data)
		}
	}
	for _, data := range []string{``, `{}`, `{"hooks": null}`, `{"hooks": {}}`} {
		if _, err := parseSettings("f.json", []byte(data)); err != nil {
			t.Errorf("%s: %v", data, err)
		}
	}
}

func TestDisableAllHooks(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	writeSettings(t, filepath.Join(home, ".claude", "settings.json"), map[hooks.Event][]groupSpec{hooks.UserPromptSubmit: echoGroup("user")})
	os.MkdirAll(filepath.Join(cwd, ".claude"), 0o755)
	os.WriteFile(filepath.Join(cwd, ".claude", "settings.json"), []byte(`{"disableAllHooks": true}`), 0o644)
	b, _ := standardBridge(t, home)
	if b.Applies(inputFor(hooks.UserPromptSubmit, cwd)) {
		t.Fatal("hooks run despite disableAllHooks")
	}
	// The local file has the last word.
	os.WriteFile(filepath.Join(cwd, ".claude", "settings.local.json"), []byte(`{"disableAllHooks": false}`), 0o644)
	if !b.Applies(inputFor(hooks.UserPromptSubmit, cwd)) {
		t.Fatal("settings.local.json did not re-enable hooks")
	}
}

func TestTimeouts(t *testing.T) {
	tests := []struct {
		ev   hooks.Event
		own  time.Duration
		want time.Duration
	}{
		{hooks.PreToolUse, 0, 600 * time.Second},
		{hooks.Stop, 5 * time.Second, 5 * time.Second},
		{hooks.UserPromptSubmit, 0, 30 * time.Second},
		{hooks.UserPromptSubmit, 90 * time.Second, 90 * time.Second},
		{hooks.SessionEnd, 0, 1500 * time.Millisecond},
		{hooks.SessionEnd, 10 * time.Second, 10 * time.Second},
		{hooks.SessionEnd, 120 * time.Second, 60 * time.Second},
	}
	for _, tt := range tests {
		if got := timeoutFor(tt.ev, tt.own); got != tt.want {
			t.Errorf("timeoutFor(%s, %s) = %s, want %s", tt.ev, tt.own, got, tt.want)
		}
	}
	t.Setenv("CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS", "4000")
	if got := timeoutFor(hooks.SessionEnd, 0); got != 4*time.Second {
		t.Errorf("with env: %s", got)
	}
}

func TestEnvAndCwd(t *testing.T) {
	cwd := t.TempDir()
	b := bridgeWith(t, hooks.SessionStart, cmd(`cat >/dev/null; printf 'dir=%s pwd=%s envfile=%s' "$CLAUDE_PROJECT_DIR" "$(pwd)" "${CLAUDE_ENV_FILE:+set}"; echo 'export A=1' >> "$CLAUDE_ENV_FILE"`))
	t.Setenv("CORDIS_TEST_INHERITED", "yes")
	d, err := b.Run(context.Background(), inputFor(hooks.SessionStart, cwd))
	if err != nil {
		t.Fatal(err)
	}
	want := "dir=" + cwd + " pwd=" + cwd + " envfile=set"
	if diff := cmp.Diff([]string{want}, d.AdditionalContext); diff != "" {
		t.Fatal(diff)
	}
	// What the hook wrote to CLAUDE_ENV_FILE reaches later Bash commands.
	if diff := cmp.Diff([]string{"export A=1\n"}, d.ShellEnv); diff != "" {
		t.Fatalf("ShellEnv (-want +got):\n%s", diff)
	}
	b = bridgeWith(t, hooks.UserPromptSubmit, cmd(`cat >/dev/null; printf '%s' "$CORDIS_TEST_INHERITED"`))
	d, _ = b.Run(context.Background(), inputFor(hooks.UserPromptSubmit, cwd))
	if diff := cmp.Diff([]string{"yes"}, d.AdditionalContext); diff != "" {
		t.Fatal(diff)
	}
}

func TestExecFormAndBashShell(t *testing.T) {
	cwd := t.TempDir()
	b := bridgeWith(t, hooks.UserPromptSubmit,
		hookSpec{Type: "command", Command: "printf", Args: []string{"%s|%s", "${CLAUDE_PROJECT_DIR}", "$HOME"}})
	d, err := b.Run(context.Background(), inputFor(hooks.UserPromptSubmit, cwd))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{cwd + "|$HOME"}, d.AdditionalContext); diff != "" {
		t.Fatal(diff)
	}
}

// testPaths are the transcripts renderInput is given.
var testPaths = rendering.Paths{Session: "/tmp/t.jsonl"}

func TestStdinRendering(t *testing.T) {
	cwd := t.TempDir()
	for _, ev := range supportedEvents {
		in := inputFor(ev, cwd)
		got := string(renderInput(in, testPaths))
		var m map[string]any
		if err := json.Unmarshal([]byte(got), &m); err != nil {
			t.Fatalf("%s: %v: %s", ev, err, got)
		}
		if !strings.HasPrefix(got, `{"session_id":"sess_1","transcript_path":"/tmp/t.jsonl","cwd":"`+cwd+`","permission_mode":"default","hook_event_name":"`+string(ev)+`"`) {
			t.Errorf("%s: common fields: %s", ev, got)
		}
	}
	tests := []struct {
		in   *hooks.Input
		want string
	}{
		{inputFor(hooks.PreToolUse, "/p"), `"tool_name":"Bash","tool_input":{"command":"rm -rf /"},"tool_use_id":"toolu_1"}`},
		{inputFor(hooks.PermissionRequest, "/p"), `"tool_name":"Bash","tool_input":{"command":"rm -rf /"},"permission_suggestions":[]}`},
		{func() *hooks.Input {
			in := inputFor(hooks.PermissionRequest, "/p")
			in.PermissionSuggestions = []hooks.PermissionUpdate{
				{Type: "addRules", Rules: []string{"Bash(npm run test:*)", "mcp__db__query"}, Behavior: "allow", Destination: "localSettings"},
				{Type: "setMode", Mode: "acceptEdits", Destination: "session"},
			}
			return in
		}(), `"permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"npm run test:*"},{"toolName":"mcp__db__query"}],"behavior":"allow","destination":"localSettings"},{"type":"setMode","mode":"acceptEdits","destination":"session"}]}`},
		{inputFor(hooks.PostToolUse, "/p"), `"tool_name":"Bash","tool_input":{"command":"rm -rf /"},"tool_response":{"stdout":"done","stderr":"","interrupted":false,"isImage":false},"tool_use_id":"toolu_1"}`},
		{inputFor(hooks.PostToolUseFailure, "/p"), `"tool_use_id":"toolu_1","error":"Exit code 1","is_interrupt":false}`},
		{inputFor(hooks.Stop, "/p"), `"hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"done"}`},
		{inputFor(hooks.SubagentStop, "/p"), `"stop_hook_active":false,"agent_id":"agent_1","agent_type":"general-purpose","agent_transcript_path":"","last_assistant_message":""}`},
		{inputFor(hooks.SubagentStart, "/p"), `"hook_event_name":"SubagentStart","agent_id":"agent_1","agent_type":"general-purpose"}`},
		{inputFor(hooks.SessionStart, "/p"), `"source":"startup"}`},
		{inputFor(hooks.UserPromptSubmit, "/p"), `"prompt":"hello"}`},
		{inputFor(hooks.PreCompact, "/p"), `"trigger":"manual","custom_instructions":""}`},
		{inputFor(hooks.PostCompact, "/p"), `"hook_event_name":"PostCompact","trigger":"auto","compact_summary":"The user asked for X."}`},
		{inputFor(hooks.SessionEnd, "/p"), `"reason":"other"}`},
		{inputFor(hooks.Notification, "/p"), `"message":"needs you","notification_type":"idle_prompt"}`},
	}
	for _, tt := range tests {
		if got := string(renderInput(tt.in, testPaths)); !strings.HasSuffix(got, tt.want) {
			t.Errorf("%s:\n got %s\nwant suffix %s", tt.in.Event, got, tt.want)
		}
	}
	// Write: Claude's {filePath, success}; a subagent's tool call has agent_id.
	in := inputFor(hooks.PostToolUse, "/p")
	in.ToolName, in.ToolInput, in.AgentID = "Write", json.RawMessage(`{"file_path":"/p/a.go","content":"x"}`), "agent_7"
	got := string(renderInput(in, testPaths))
	for _, want := range []string{`"agent_id":"agent_7"`, `"tool_response":{"filePath":"/p/a.go","success":true}`} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %s in %s", want, got)
		}
	}
	// A hook sees exactly this on stdin (an input without a session log
	// has no transcript).
	b := bridgeWith(t, hooks.UserPromptSubmit, cmd("printf 'stdin='; cat"))
	up := inputFor(hooks.UserPromptSubmit, cwd)
	d, _ := b.Run(context.Background(), up)
	if diff := cmp.Diff([]string{"stdin=" + string(renderInput(up, rendering.Paths{}))}, d.AdditionalContext, cmpopts.EquateEmpty()); diff != "" {
		t.Fatal(diff)
	}
}

// syncWriter serialises writes of concurrent loggers into a buffer.
type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
