package codex

// One test per conflict between the Claude Code and Codex dialects
// (reference §10, plus the matcher, dedup and context-delivery
// differences of §1/§3/§4.4): the same hooks.json and the same fixed
// script output, run through bridge/claude and bridge/codex, must give
// different decisions.

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cordis-agent/cordis/bridge/claude"
	"github.com/cordis-agent/cordis/hooks"
)

type dialectRun struct {
	d    hooks.Decision
	fail bool // the run was reported as failed (an error, or hook/error)
}

// runBoth runs the hooks.json content on seam through both bridges.
func runBoth(t *testing.T, seam hooks.Event, content string, tweak func(*hooks.Input)) (cc, cx dialectRun) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hooks.json")
	writeFile(t, path, content)

	e := newEnv(t, envOpts{path: path})
	in := e.baseInput(seam)
	if tweak != nil {
		tweak(in)
	}
	d, failures := e.run(in)
	cx = dialectRun{d: d, fail: len(failures) > 0}

	cb := claude.New(claude.Config{Path: path}, claude.Options{Grace: 200 * time.Millisecond})
	in = e.baseInput(seam)
	if tweak != nil {
		tweak(in)
	}
	d, err := cb.Hook(seam).Run(context.Background(), in)
	cc = dialectRun{d: d, fail: err != nil}
	return cc, cx
}

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
