package bridge_test

// One test per conflict between the Claude Code and Codex dialects
// (reference §10, plus the matcher, dedup and context-delivery
// differences of §1/§3/§4.4): the same hooks.json and the same fixed
// script output, run through bridge/claude and bridge/codex, must give
// different decisions. It lives above both dialects, and sees them only
// through their public API, as cordis does.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cordis-agent/cordis/bridge/claude"
	"github.com/cordis-agent/cordis/bridge/codex"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/sessionlog"
)

type dialectRun struct {
	d    hooks.Decision
	fail bool // the run was reported as failed (an error, or hook/error)
}

// runBoth runs the hooks.json content on seam through both bridges.
func runBoth(t *testing.T, seam hooks.Event, content string, tweak func(*hooks.Input)) (cc, cx dialectRun) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hooks.json")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	cwd := t.TempDir()
	cx = runOne(t, codex.New(codex.Config{Path: path}, codex.Options{Shell: []string{"sh", "-c"}, Home: "/nonexistent-home"}).Hook(seam), seam, cwd, tweak)
	cc = runOne(t, claude.New(claude.Config{Path: path}, claude.Options{Grace: 200 * time.Millisecond}).Hook(seam), seam, cwd, tweak)
	return cc, cx
}

// runOne runs h for seam as the pipeline would (Applies first).
func runOne(t *testing.T, h hooks.Hook, seam hooks.Event, cwd string, tweak func(*hooks.Input)) dialectRun {
	in := input(seam, cwd)
	if tweak != nil {
		tweak(in)
	}
	failed := false
	in.Record = func(typ string, _ any) { failed = failed || typ == sessionlog.TypeHookError }
	if a, ok := h.(hooks.Applicable); ok && !a.Applies(in) {
		return dialectRun{}
	}
	d, err := h.Run(context.Background(), in)
	return dialectRun{d: d, fail: failed || err != nil}
}

// input is what the loop hands a seam.
func input(seam hooks.Event, cwd string) *hooks.Input {
	in := &hooks.Input{Event: seam, SessionID: "sess-1", Cwd: cwd, PermissionMode: "default", Model: "test-model", TurnID: "turn-1"}
	switch seam {
	case hooks.SessionStart:
		in.TurnID, in.Source = "", "startup"
	case hooks.PreToolUse, hooks.PermissionRequest:
		in.ToolName, in.ToolUseID, in.ToolInput = "Bash", "toolu_1", json.RawMessage(`{"command":"rm -rf build","description":"clean"}`)
	case hooks.PostToolUse:
		in.ToolName, in.ToolUseID, in.ToolInput = "Bash", "toolu_1", json.RawMessage(`{"command":"rm -rf build"}`)
		in.ToolResponse = hooks.ToolResponseJSON("removed")
	case hooks.Stop:
		in.LastAssistantMessage = "All done."
	case hooks.SubagentStart:
		in.AgentID, in.AgentType = "agent-1", "general-purpose"
	case hooks.PreCompact:
		in.Trigger = "manual"
	}
	return in
}

// emit is the command that prints the fixed output form for event
// (codex/testdata/emit.sh).
func emit(t *testing.T, form, event string) string {
	script, err := filepath.Abs(filepath.Join("codex", "testdata", "emit.sh"))
	if err != nil {
		t.Fatal(err)
	}
	return "sh " + script + " " + form + " " + event
}

// hooksJSON is a hooks.json declaring one group with commands on event.
func hooksJSON(event, matcher string, commands ...string) string {
	var hs []map[string]string
	for _, c := range commands {
		hs = append(hs, map[string]string{"type": "command", "command": c})
	}
	g := map[string]any{"hooks": hs}
	if matcher != "" {
		g["matcher"] = matcher
	}
	b, _ := json.Marshal(map[string]any{"hooks": map[string]any{event: []any{g}}})
	return string(b)
}

func ptr(s string) *string { return &s }

func TestDialectConflicts(t *testing.T) {
	one := func(t *testing.T, event, form string) string {
		return hooksJSON(event, "", emit(t, form, event))
	}
	editCall := func(in *hooks.Input) {
		in.ToolName = "Edit"
		in.ToolInput = []byte(`{"file_path":"/nonexistent/a.go","old_string":"a","new_string":"b"}`)
	}
	cases := []struct {
		name    string
		seam    hooks.Event
		content func(t *testing.T) string
		tweak   func(*hooks.Input)
		claude  dialectRun
		codex   dialectRun
	}{
		{
			name: "exit 2 with empty stderr: Claude blocks, Codex fails the run",
			seam: hooks.PreToolUse, content: func(t *testing.T) string { return one(t, "PreToolUse", "exit2-empty") },
			claude: dialectRun{d: hooks.Decision{Permission: hooks.Deny}},
			codex:  dialectRun{fail: true},
		},
		{
			name: "exit 1 with a valid JSON deny: Claude's JSON decides, Codex fails the run",
			seam: hooks.PreToolUse, content: func(t *testing.T) string { return one(t, "PreToolUse", "exit1-deny") },
			claude: dialectRun{d: hooks.Decision{Permission: hooks.Deny, Reason: "json deny"}},
			codex:  dialectRun{fail: true},
		},
		{
			name: "exit 2 with JSON on stdout: Claude takes the JSON reason, Codex stderr",
			seam: hooks.Stop, content: func(t *testing.T) string { return one(t, "Stop", "exit2-json") },
			claude: dialectRun{d: hooks.Decision{Block: true, Reason: "json reason"}},
			codex:  dialectRun{d: hooks.Decision{Block: true, Reason: "stderr reason"}},
		},
		{
			name: "PreToolUse allow without updatedInput: Claude allows, Codex fails the run",
			seam: hooks.PreToolUse, content: func(t *testing.T) string { return one(t, "PreToolUse", "allow") },
			claude: dialectRun{d: hooks.Decision{Permission: hooks.Allow}},
			codex:  dialectRun{fail: true},
		},
		{
			name: "deny without a reason: Claude denies, Codex fails the run",
			seam: hooks.PreToolUse, content: func(t *testing.T) string { return one(t, "PreToolUse", "deny-noreason") },
			claude: dialectRun{d: hooks.Decision{Permission: hooks.Deny}},
			codex:  dialectRun{fail: true},
		},
		{
			name: "PreToolUse ask: Claude asks, Codex fails the run",
			seam: hooks.PreToolUse, content: func(t *testing.T) string { return one(t, "PreToolUse", "ask") },
			claude: dialectRun{d: hooks.Decision{Permission: hooks.Ask, Reason: "sure?"}},
			codex:  dialectRun{fail: true},
		},
		{
			name: "legacy decision approve: Claude allows, Codex fails the run",
			seam: hooks.PreToolUse, content: func(t *testing.T) string { return one(t, "PreToolUse", "approve") },
			claude: dialectRun{d: hooks.Decision{Permission: hooks.Allow, Reason: "fine"}},
			codex:  dialectRun{fail: true},
		},
		{
			name: "continue:false on PreToolUse: Claude stops the turn, Codex fails the run",
			seam: hooks.PreToolUse, content: func(t *testing.T) string { return one(t, "PreToolUse", "continue-false") },
			claude: dialectRun{d: hooks.Decision{StopTurn: true, StopReason: "halt now"}},
			codex:  dialectRun{fail: true},
		},
		{
			name: "Stop with plain-text stdout: Claude ignores it, Codex fails the run",
			seam: hooks.Stop, content: func(t *testing.T) string { return one(t, "Stop", "text") },
			claude: dialectRun{},
			codex:  dialectRun{fail: true},
		},
		{
			name: "Stop additionalContext: Claude continues, Codex fails the run",
			seam: hooks.Stop, content: func(t *testing.T) string { return one(t, "Stop", "context") },
			claude: dialectRun{d: hooks.Decision{Block: true, Reason: "extra context"}},
			codex:  dialectRun{fail: true},
		},
		{
			name: "PostToolUse block: Claude keeps the result and adds the reason, Codex replaces the result",
			seam: hooks.PostToolUse, content: func(t *testing.T) string { return one(t, "PostToolUse", "block") },
			claude: dialectRun{d: hooks.Decision{Block: true, Reason: "blocked because"}},
			codex:  dialectRun{d: hooks.Decision{ReplaceResult: ptr("blocked because")}},
		},
		{
			name: "exit 2 on PermissionRequest: Claude ignores it, Codex denies",
			seam: hooks.PermissionRequest, content: func(t *testing.T) string { return one(t, "PermissionRequest", "exit2") },
			claude: dialectRun{},
			codex:  dialectRun{d: hooks.Decision{Permission: hooks.Deny, Reason: "stderr reason"}},
		},
		{
			name: "exit 2 on PreCompact: Claude blocks compaction, Codex fails the run",
			seam: hooks.PreCompact, content: func(t *testing.T) string { return one(t, "PreCompact", "exit2") },
			claude: dialectRun{d: hooks.Decision{Block: true, Reason: "stderr reason"}},
			codex:  dialectRun{fail: true},
		},
		{
			name: "SessionStart additionalContext: Claude's system-reminder, Codex's system-side context",
			seam: hooks.SessionStart, content: func(t *testing.T) string { return one(t, "SessionStart", "context") },
			claude: dialectRun{d: hooks.Decision{AdditionalContext: []string{"extra context"}}},
			codex:  dialectRun{d: hooks.Decision{SystemContext: []string{"extra context"}}},
		},
		{
			name: "identical commands: Claude runs them once, Codex runs each",
			seam: hooks.Stop,
			content: func(t *testing.T) string {
				return hooksJSON("Stop", "", emit(t, "block", "Stop"), emit(t, "block", "Stop"))
			},
			claude: dialectRun{d: hooks.Decision{Block: true, Reason: "blocked because"}},
			codex:  dialectRun{d: hooks.Decision{Block: true, Reason: "blocked because\n\nblocked because"}},
		},
		{
			name: "comma matcher: an exact list in Claude, a regex matching nothing in Codex",
			seam: hooks.PreToolUse, tweak: editCall,
			content: func(t *testing.T) string {
				return hooksJSON("PreToolUse", "Edit,Write", emit(t, "sysmsg", "PreToolUse"))
			},
			claude: dialectRun{d: hooks.Decision{SystemMessages: []string{"note for the user"}}},
			codex:  dialectRun{},
		},
		{
			name: "hyphenated matcher: exact in Claude, an unanchored regex in Codex",
			seam: hooks.SubagentStart, tweak: func(in *hooks.Input) { in.AgentType = "senior-code-reviewer" },
			content: func(t *testing.T) string {
				return hooksJSON("SubagentStart", "code-reviewer", emit(t, "sysmsg", "SubagentStart"))
			},
			claude: dialectRun{},
			codex:  dialectRun{d: hooks.Decision{SystemMessages: []string{"note for the user"}}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cc, cx := runBoth(t, c.seam, c.content(t), c.tweak)
			opts := []cmp.Option{cmp.AllowUnexported(dialectRun{}), cmpopts.EquateEmpty()}
			if diff := cmp.Diff(c.claude, cc, opts...); diff != "" {
				t.Errorf("Claude (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.codex, cx, opts...); diff != "" {
				t.Errorf("Codex (-want +got):\n%s", diff)
			}
			if cmp.Equal(cc, cx, opts...) {
				t.Errorf("the dialects agree; this is not a conflict")
			}
		})
	}
}
