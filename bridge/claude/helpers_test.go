package claude

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/hooks"
)

// testdataDir is the absolute path of testdata.
func testdataDir(t testing.TB) string {
	t.Helper()
	d, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// hookSpec is one command hook in a test hooks file.
type hookSpec struct {
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Timeout float64  `json:"timeout,omitempty"`
	Args    []string `json:"args,omitempty"`
	Async   bool     `json:"async,omitempty"`
	Rewake  bool     `json:"asyncRewake,omitempty"`
	If      string   `json:"if,omitempty"`
}

type groupSpec struct {
	Matcher string     `json:"matcher,omitempty"`
	Hooks   []hookSpec `json:"hooks"`
}

// writeSettings writes {"hooks": byEvent} to path.
func writeSettings(t testing.TB, path string, byEvent map[hooks.Event][]groupSpec) {
	t.Helper()
	b, err := json.MarshalIndent(map[string]any{"hooks": byEvent}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// bridgeWith returns a bridge on a hooks file holding the given commands
// for ev (one group, matcher "*").
func bridgeWith(t testing.TB, ev hooks.Event, cmds ...hookSpec) *Bridge {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hooks.json")
	writeSettings(t, path, map[hooks.Event][]groupSpec{ev: {{Matcher: "*", Hooks: cmds}}})
	return New(Config{Path: path}, Options{Grace: 200 * time.Millisecond})
}

func cmd(command string) hookSpec { return hookSpec{Type: "command", Command: command} }

// inputFor is a typical input for ev in cwd.
func inputFor(ev hooks.Event, cwd string) *hooks.Input {
	in := &hooks.Input{Event: ev, SessionID: "sess_1", Cwd: cwd, PermissionMode: "default"}
	switch ev {
	case hooks.PreToolUse, hooks.PermissionRequest, hooks.PostToolUse, hooks.PostToolUseFailure:
		in.ToolName, in.ToolUseID, in.ToolInput = "Bash", "toolu_1", json.RawMessage(`{"command":"rm -rf /"}`)
		if ev == hooks.PostToolUse {
			in.ToolResponse = json.RawMessage(`{"output":"done"}`)
		}
		if ev == hooks.PostToolUseFailure {
			in.Error = "Exit code 1"
		}
	case hooks.SessionStart:
		in.Source = "startup"
	case hooks.UserPromptSubmit:
		in.Prompt = "hello"
	case hooks.Stop:
		in.LastAssistantMessage = "done"
	case hooks.SubagentStart, hooks.SubagentStop:
		in.AgentID, in.AgentType = "agent_1", "general-purpose"
	case hooks.PreCompact:
		in.Trigger = "manual"
	case hooks.PostCompact:
		in.Trigger, in.CompactSummary = "auto", "The user asked for X."
	case hooks.SessionEnd:
		in.Reason = "other"
	case hooks.Notification:
		in.Message, in.NotificationType = "needs you", "idle_prompt"
	}
	return in
}

func isZero(d hooks.Decision) bool {
	return d.Permission == hooks.NoOpinion && !d.Block && d.Reason == "" && d.UpdatedInput == nil &&
		d.ReplaceResult == nil && len(d.AdditionalContext) == 0 && len(d.SystemMessages) == 0 && !d.StopTurn && d.StopReason == ""
}

// runRecorded runs b for in as the pipeline would and returns its
// decision and, as one error, the failures it recorded as hook/error
// (a bridge records a failed command rather than returning an error).
func runRecorded(b *Bridge, in *hooks.Input) (hooks.Decision, error) {
	var rec recorded
	d, err := b.Run(context.Background(), rec.input(in))
	if err != nil {
		return d, err
	}
	var errs []error
	for _, f := range rec.failures {
		errs = append(errs, errors.New(f.Error))
	}
	return d, errors.Join(errs...)
}
