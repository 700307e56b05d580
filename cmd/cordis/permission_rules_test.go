package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cordis-agent/cordis/acp"
)

// Through the binary, as a cloned repository and a returning user meet it:
// the repository's .claude/settings.local.json plants an allow rule (not
// honoured: touch is asked about) and a deny rule (honoured: rm is refused
// unasked); "Always allow" on `mkdir first` covers mkdir only, is saved
// in that file, and after a restart (a new process over the same state
// directory) still holds. (mkdir, not echo: echo is a read-only command,
// which runs without asking.)
func TestAlwaysAllowAndProjectRulesThroughTheBinary(t *testing.T) {
	ctx := testCtx(t)
	state, work := t.TempDir(), t.TempDir()
	settings := filepath.Join(work, ".claude", "settings.local.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	os.WriteFile(settings, []byte(`{"permissions": {"allow": ["Bash(touch:*)"], "deny": ["Bash(rm:*)"]}}`), 0o644)
	os.Mkdir(filepath.Join(work, "keep"), 0o755)

	model := newFakeModel(t,
		toolReply("toolu_1", "Bash", `{"command":"mkdir first"}`), textReply("ok"),
		toolReply("toolu_2", "Bash", `{"command":"touch second-unasked.txt"}`), textReply("ok"),
		toolReply("toolu_3", "Bash", `{"command":"rm -rf keep"}`), textReply("ok"))
	e, _ := startAgent(t, model, state, work)
	var (
		mu    sync.Mutex
		asked []*acp.RequestPermissionRequest
	)
	e.OnPermission = func(_ context.Context, p *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, p)
		option := acp.PermRejectOnce
		if p.ToolCall.Title == "mkdir first" {
			option = acp.PermAllowAlways
		}
		return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: option}}, nil
	}
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, work).SessionID
	for _, text := range []string{"first", "second", "third"} {
		if stop, err := e.Prompt(ctx, sid, text); err != nil || stop != acp.StopEndTurn {
			t.Fatalf("prompt %s: %q, %v", text, stop, err)
		}
	}
	e.Close()

	var titles []string
	for _, p := range asked {
		titles = append(titles, p.ToolCall.Title)
	}
	if strings.Join(titles, " | ") != "mkdir first | touch second-unasked.txt" {
		t.Fatalf("asked about %q", titles)
	}
	if name := optionNamed(asked[0], acp.PermAllowAlways); name != "Always allow `mkdir:*` in this project" {
		t.Errorf("always option = %q", name)
	}
	for _, gone := range []string{"second-unasked.txt"} {
		if _, err := os.Stat(filepath.Join(work, gone)); err == nil {
			t.Errorf("%s was created", gone)
		}
	}
	if _, err := os.Stat(filepath.Join(work, "keep")); err != nil {
		t.Error("the planted deny rule did not stop rm")
	}
	saved, _ := os.ReadFile(settings)
	if !strings.Contains(string(saved), `"Bash(mkdir:*)"`) || !strings.Contains(string(saved), `"deny"`) {
		t.Errorf("settings.local.json:\n%s", saved)
	}

	// A restart: a new process over the same state directory.
	model2 := newFakeModel(t, toolReply("toolu_4", "Bash", `{"command":"mkdir third > /dev/null; mkdir after-redirect"}`), textReply("ok"),
		toolReply("toolu_5", "Bash", `{"command":"mkdir after-restart"}`), textReply("ok"))
	e2, _ := startAgent(t, model2, state, work)
	var asked2 []string
	e2.OnPermission = func(_ context.Context, p *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		mu.Lock()
		defer mu.Unlock()
		asked2 = append(asked2, p.ToolCall.Title)
		return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: acp.PermRejectOnce}}, nil
	}
	e2.Initialize(ctx, acp.ClientCapabilities{})
	sid2 := e2.NewSession(ctx, work).SessionID
	for _, text := range []string{"redirect", "plain"} {
		if stop, err := e2.Prompt(ctx, sid2, text); err != nil || stop != acp.StopEndTurn {
			t.Fatalf("prompt %s after the restart: %q, %v", text, stop, err)
		}
	}
	// mkdir:* does not cover a redirection; it covers plain mkdir, unasked.
	if len(asked2) != 1 || !strings.HasPrefix(asked2[0], "mkdir third > /dev/null") {
		t.Errorf("after the restart asked about %q, want only the redirecting command", asked2)
	}
	if _, err := os.Stat(filepath.Join(work, "after-restart")); err != nil {
		t.Errorf("the allowed mkdir did not run after the restart: %v", err)
	}
	if _, err := os.Stat(filepath.Join(work, "after-redirect")); err == nil {
		t.Error("the rejected command ran")
	}
}

func optionNamed(p *acp.RequestPermissionRequest, kind string) string {
	for _, o := range p.Options {
		if o.Kind == kind {
			return o.Name
		}
	}
	return ""
}
