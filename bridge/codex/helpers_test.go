package codex

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cordis-agent/cordis/bridge/internal/guard"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/internal/trust"
	"github.com/cordis-agent/cordis/sessionlog"
)

// testdataDir is the absolute path of testdata, for commands.
func testdataDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// emit is the command that prints the fixed output form for event.
func emit(t *testing.T, form, event string) string {
	return "sh " + filepath.Join(testdataDir(t), "emit.sh") + " " + form + " " + event
}

// fakeRegistrar keeps the hook registered on each seam.
type fakeRegistrar struct {
	hooks map[hooks.Event]hooks.Hook
	opts  map[hooks.Event]hooks.RegisterOptions
	order []hooks.Event
}

func (r *fakeRegistrar) Register(e hooks.Event, h hooks.Hook, o hooks.RegisterOptions) {
	if r.hooks == nil {
		r.hooks, r.opts = map[hooks.Event]hooks.Hook{}, map[hooks.Event]hooks.RegisterOptions{}
	}
	r.hooks[e], r.opts[e] = h, o
	r.order = append(r.order, e)
}

// record is one event the bridge wrote through Input.Record.
type record struct {
	typ  string
	data any
}

type env struct {
	t      *testing.T
	cwd    string
	home   string
	state  string
	store  *trust.Store
	bridge *Bridge
	reg    *fakeRegistrar

	mu      sync.Mutex
	records []record
}

type envOpts struct {
	path  string   // explicit Config.Path
	shell []string // default: sh -c (tests do not depend on login profiles)
	// guardFailure is Config.GuardFailure.
	guardFailure guard.Policy
	// logger receives the bridge's log (default: none).
	logger *slog.Logger
	// noTrust gives the bridge no trust store.
	noTrust bool
}

func newEnv(t *testing.T, o envOpts) *env {
	t.Helper()
	e := &env{t: t, cwd: t.TempDir(), home: t.TempDir(), state: t.TempDir()}
	e.store = trust.Open(e.state)
	shell := o.shell
	if shell == nil {
		shell = []string{"sh", "-c"}
	}
	store := e.store
	if o.noTrust {
		store = nil
	}
	e.bridge = New(Config{Path: o.path, GuardFailure: o.guardFailure}, Options{Name: "codex-test", Home: e.home, Trust: store, Shell: shell, Logger: o.logger})
	e.reg = &fakeRegistrar{}
	e.bridge.Register(e.reg)
	return e
}

// hooksJSON builds a hooks.json declaring one group per command on event.
func hooksJSON(event, matcher string, commands ...string) string {
	type h struct {
		Type    string `json:"type"`
		Command string `json:"command"`
	}
	var hs []h
	for _, c := range commands {
		hs = append(hs, h{"command", c})
	}
	g := map[string]any{"hooks": hs}
	if matcher != "" {
		g["matcher"] = matcher
	}
	b, _ := json.Marshal(map[string]any{"hooks": map[string]any{event: []any{g}}})
	return string(b)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (e *env) projectFile() string { return filepath.Join(e.cwd, ".codex", "hooks.json") }
func (e *env) userFile() string    { return filepath.Join(e.home, ".codex", "hooks.json") }

// baseInput is a representative input of each seam, as the loop fills it.
func (e *env) baseInput(seam hooks.Event) *hooks.Input {
	in := &hooks.Input{Event: seam, SessionID: "sess-1", Cwd: e.cwd, SessionLogPath: filepath.Join(e.state, "sessions", "sess-1.jsonl"),
		PermissionMode: "default", Model: "claude-test", TurnID: "turn-1"}
	switch seam {
	case hooks.SessionStart:
		in.TurnID, in.Source = "", "startup"
	case hooks.SessionEnd:
		in.TurnID, in.Reason = "", "prompt_input_exit"
	case hooks.UserPromptSubmit:
		in.Prompt = "hello"
	case hooks.PreToolUse, hooks.PermissionRequest:
		in.ToolName, in.ToolUseID, in.ToolInput = "Bash", "toolu_1", json.RawMessage(`{"command":"rm -rf build","description":"clean"}`)
	case hooks.PostToolUse:
		in.ToolName, in.ToolUseID, in.ToolInput = "Bash", "toolu_1", json.RawMessage(`{"command":"rm -rf build"}`)
		in.ToolResponse = hooks.ToolResponseJSON("removed")
	case hooks.PostToolUseFailure:
		in.ToolName, in.ToolUseID, in.ToolInput = "Bash", "toolu_1", json.RawMessage(`{"command":"rm -rf build"}`)
		in.Error = "Exit code 1"
	case hooks.Stop:
		in.LastAssistantMessage = "All done."
	case hooks.SubagentStart:
		in.AgentID, in.AgentType = "agent-1", "general-purpose"
	case hooks.SubagentStop:
		in.AgentID, in.AgentType, in.LastAssistantMessage = "agent-1", "general-purpose", "Found it."
	case hooks.PreCompact:
		in.Trigger = "manual"
	}
	in.Record = func(typ string, data any) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.records = append(e.records, record{typ, data})
	}
	return in
}

// run runs the bridge's hook on in.Event, as the pipeline would (Applies
// first) and returns its decision and the failures it recorded.
func (e *env) run(in *hooks.Input) (hooks.Decision, []string) {
	e.t.Helper()
	h := e.reg.hooks[in.Event]
	if h == nil {
		e.t.Fatalf("no hook registered on %s", in.Event)
	}
	e.mu.Lock()
	e.records = nil
	e.mu.Unlock()
	if a, ok := h.(hooks.Applicable); ok && !a.Applies(in) {
		return hooks.Decision{}, nil
	}
	d, err := h.Run(context.Background(), in)
	if err != nil {
		e.t.Fatalf("Run(%s): %v", in.Event, err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	var failures []string
	for _, r := range e.records {
		if r.typ == sessionlog.TypeHookError {
			failures = append(failures, r.data.(guard.ErrorRecord).Error)
		}
	}
	return d, failures
}

func contains(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func ptr(s string) *string { return &s }
