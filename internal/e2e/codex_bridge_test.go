package e2e_test

// Full turns through the Codex CLI hook bridge (bridge/codex) registered on
// a hooks.Pipeline, as cmd/cordis assembles it: each event's effect on
// what the model sees and on the session log, both bridges on one event,
// and trust of project hooks.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/bridge/claude"
	"github.com/cordis-agent/cordis/bridge/codex"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/internal/trust"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
	"github.com/cordis-agent/cordis/sessionlog"
)

// codexFile writes a Codex hooks.json with one command per event.
func codexFile(t *testing.T, byEvent map[string]string) string {
	t.Helper()
	cfg := map[string]any{}
	for ev, cmd := range byEvent {
		cfg[ev] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd}}}}
	}
	b, _ := json.Marshal(map[string]any{"hooks": cfg})
	path := filepath.Join(t.TempDir(), "hooks.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// codexOptions runs commands with sh -c: the tests do not depend on the
// user's login profile.
func codexOptions(name string) codex.Options {
	return codex.Options{Name: name, Shell: []string{"sh", "-c"}, Home: "/nonexistent-home"}
}

func countEvents(events []sessionlog.Event, typ, contains string) int {
	n := 0
	for _, e := range events {
		if e.Type == typ && strings.Contains(string(e.Data), contains) {
			n++
		}
	}
	return n
}

// TestCodexBridgeFullTurn: SessionStart context reaches the system prompt,
// UserPromptSubmit context the prompt, a PreToolUse deny refuses a call, a
// PostToolUse block replaces the result the model sees, and a Stop block
// continues the turn once (the hook honours stop_hook_active).
func TestCodexBridgeFullTurn(t *testing.T) {
	path := codexFile(t, map[string]string{
		"SessionStart":     `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"codex session context"}}'`,
		"UserPromptSubmit": `cat >/dev/null; echo 'codex prompt context'`,
		"PreToolUse":       `if grep -q forbidden; then echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"forbidden by codex policy"}}'; fi`,
		"PostToolUse":      `cat >/dev/null; echo '{"decision":"block","reason":"codex feedback replaces the output"}'`,
		"Stop":             `if grep -q '"stop_hook_active":true'; then echo '{}'; exit 0; fi; echo '{"decision":"block","reason":"run the tests first"}'`,
	})
	p := hooks.NewPipeline()
	codex.New(codex.Config{Path: path}, codexOptions("codex-hooks")).Register(p)
	h := looptest.NewHarness(t, looptest.Options{Hooks: p, Mode: loop.ModeBypass},
		looptest.StreamBlocks("tool_use", bashEcho("toolu_1", "forbidden"), bashEcho("toolu_2", "original output")),
		looptest.ReplyText("All done."),
		looptest.ReplyText("Tests pass."))
	sid := h.NewSession()
	if stop := h.Prompt(sid, "go"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	reqs := h.Model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3 (the Stop block continues once)", len(reqs))
	}
	if sys := jsonOf(reqs[0]["system"]); !strings.Contains(sys, "codex session context") {
		t.Errorf("SessionStart context is not in the system prompt: %s", sys)
	}
	if msgs := jsonOf(reqs[0]["messages"]); !strings.Contains(msgs, "codex prompt context") {
		t.Errorf("UserPromptSubmit context missing: %s", msgs)
	}
	if text, isErr := looptest.ToolResult(t, reqs[1], "toolu_1"); !isErr || !strings.Contains(text, "forbidden by codex policy") {
		t.Errorf("denied call result = %q (error %v)", text, isErr)
	}
	if text, _ := looptest.ToolResult(t, reqs[1], "toolu_2"); text != "codex feedback replaces the output" {
		t.Errorf("PostToolUse result = %q, want the feedback alone", text)
	}
	if msgs := jsonOf(reqs[2]["messages"]); !strings.Contains(msgs, "run the tests first") {
		t.Errorf("the Stop reason did not reach the model: %s", msgs)
	}

	events := sessionEvents(t, sessionlog.Path(h.StateDir, sid))
	for _, ev := range []string{"UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"} {
		if n := countEvents(events, sessionlog.TypeHookResult, `"hook":"codex-hooks","event":"`+ev+`"`); n == 0 {
			t.Errorf("no hook/result of codex-hooks on %s in the session log", ev)
		}
	}
	if n := countEvents(events, sessionlog.TypeHookResult, `"replaceResult":"codex feedback replaces the output"`); n != 1 {
		t.Errorf("%d hook/result records with the replaced result, want 1", n)
	}
}

// TestCodexBridgeFailedHookIsRecorded: an invalid output is recorded as
// hook/error and changes nothing.
func TestCodexBridgeFailedHookIsRecorded(t *testing.T) {
	path := codexFile(t, map[string]string{
		"PreToolUse": `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}'`,
	})
	p := hooks.NewPipeline()
	codex.New(codex.Config{Path: path}, codexOptions("codex-hooks")).Register(p)
	h := looptest.NewHarness(t, looptest.Options{Hooks: p, Mode: loop.ModeBypass}, looptest.StreamBlocks("tool_use", bashEcho("toolu_1", "ran")), looptest.ReplyText("ok"))
	sid := h.NewSession()
	h.Prompt(sid, "x")
	if text, isErr := looptest.ToolResult(t, h.Model.Requests()[1], "toolu_1"); isErr || !strings.Contains(text, "ran") {
		t.Errorf("result = %q (error %v): an invalid ask must not stop the call", text, isErr)
	}
	if n := countEvents(sessionEvents(t, sessionlog.Path(h.StateDir, sid)), sessionlog.TypeHookError, `unsupported permissionDecision \"ask\"`); n != 1 {
		t.Errorf("%d hook/error records for the invalid ask, want 1", n)
	}
}

// TestCodexStopLoopIsCapped: Codex has no cap, cordis does.
func TestCodexStopLoopIsCapped(t *testing.T) {
	path := codexFile(t, map[string]string{"Stop": `cat >/dev/null; echo '{"decision":"block","reason":"never done"}'`})
	p := hooks.NewPipeline()
	codex.New(codex.Config{Path: path}, codexOptions("codex-hooks")).Register(p)
	h := looptest.NewHarness(t, looptest.Options{Hooks: p, Config: func(c *loop.Config) { c.MaxStopBlocks = 2 }},
		looptest.ReplyText("a"), looptest.ReplyText("b"), looptest.ReplyText("c"))
	sid := h.NewSession()
	h.Prompt(sid, "x")
	if n := len(h.Model.Requests()); n != 3 {
		t.Errorf("%d requests, want 3 (two continuations, then the cap)", n)
	}
	if got := looptest.AgentText(h.Editor.Updates(sid)); !strings.Contains(got, "consecutive times") {
		t.Errorf("the cap was not announced: %q", got)
	}
}

// TestBothBridgesOnOneEventMergeInConfigOrder: a Claude and a Codex hook
// on the same seams, merged in configuration (registration) order.
func TestBothBridgesOnOneEventMergeInConfigOrder(t *testing.T) {
	dir := t.TempDir()
	claudePath := filepath.Join(dir, "claude.json")
	if err := os.WriteFile(claudePath, []byte(`{"hooks": {
		"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "cat >/dev/null; echo 'context from claude'"}]}],
		"Stop": [{"hooks": [{"type": "command", "command": "if grep -q '\"stop_hook_active\":true'; then exit 0; fi; echo 'claude says continue' >&2; exit 2"}]}]
	}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	codexPath := codexFile(t, map[string]string{
		"UserPromptSubmit": `cat >/dev/null; echo 'context from codex'`,
		"Stop":             `if grep -q '"stop_hook_active":true'; then echo '{}'; exit 0; fi; echo 'codex says continue' >&2; exit 2`,
	})
	for _, order := range []string{"claude,codex", "codex,claude"} {
		t.Run(order, func(t *testing.T) {
			p := hooks.NewPipeline()
			for _, name := range strings.Split(order, ",") {
				if name == "claude" {
					claude.New(claude.Config{Path: claudePath}, claude.Options{Name: "claude-hooks", Priority: 100}).Register(p)
				} else {
					codex.New(codex.Config{Path: codexPath}, codex.Options{Name: "codex-hooks", Priority: 100, Shell: []string{"sh", "-c"}}).Register(p)
				}
			}
			h := looptest.NewHarness(t, looptest.Options{Hooks: p}, looptest.ReplyText("done"), looptest.ReplyText("really done"))
			sid := h.NewSession()
			h.Prompt(sid, "x")
			reqs := h.Model.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			first, second := "context from claude", "context from codex"
			firstStop, secondStop := "claude says continue", "codex says continue"
			if order == "codex,claude" {
				first, second, firstStop, secondStop = second, first, secondStop, firstStop
			}
			msgs := jsonOf(reqs[0]["messages"])
			if i, j := strings.Index(msgs, first), strings.Index(msgs, second); i < 0 || j < 0 || i > j {
				t.Errorf("prompt contexts out of config order: %s", msgs)
			}
			cont := jsonOf(reqs[1]["messages"])
			if i, j := strings.Index(cont, firstStop), strings.Index(cont, secondStop); i < 0 || j < 0 || i > j {
				t.Errorf("Stop reasons out of config order: %s", cont)
			}
			events := sessionEvents(t, sessionlog.Path(h.StateDir, sid))
			var names []string
			for _, e := range events {
				if e.Type == sessionlog.TypeHookStart && strings.Contains(string(e.Data), `"event":"UserPromptSubmit"`) {
					var d struct{ Hook string }
					json.Unmarshal(e.Data, &d)
					names = append(names, d.Hook)
				}
			}
			want := map[string]string{"claude,codex": "claude-hooks,codex-hooks", "codex,claude": "codex-hooks,claude-hooks"}[order]
			if strings.Join(names, ",") != want {
				t.Errorf("hook order in the session log = %v, want %s", names, want)
			}
		})
	}
}

// TestCodexProjectHookTrust: an untrusted project hook is skipped and the
// skip is shown in the editor; after `cordis hooks trust` it runs; an edit
// makes it untrusted again.
func TestCodexProjectHookTrust(t *testing.T) {
	state := t.TempDir()
	store := trust.Open(state)
	p := hooks.NewPipeline()
	opts := codexOptions("codex-hooks")
	opts.Trust = store
	codex.New(codex.Config{}, opts).Register(p)
	h := looptest.NewHarness(t, looptest.Options{Hooks: p}, looptest.ReplyText("one"), looptest.ReplyText("three"))
	file := filepath.Join(h.Cwd, ".codex", "hooks.json")
	write := func(reason string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(file), 0o755)
		data := `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "cat >/dev/null; echo '{\"decision\":\"block\",\"reason\":\"` + reason + `\"}'"}]}]}}`
		if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		future := time.Now().Add(time.Duration(len(reason)) * time.Second)
		os.Chtimes(file, future, future)
	}
	write("blocked by project")
	sid := h.NewSession()

	h.Prompt(sid, "first")
	text := looptest.AgentText(h.Editor.Updates(sid))
	if !strings.Contains(text, "cordis skipped a Codex project hook that is not trusted") || !strings.Contains(text, "cordis hooks trust --cwd "+h.Cwd) {
		t.Fatalf("the skip was not shown: %q", text)
	}
	if strings.Contains(text, "Prompt blocked") || len(h.Model.Requests()) != 1 {
		t.Fatalf("the untrusted hook ran")
	}

	for _, d := range codex.Discover(h.Cwd) {
		if err := store.Trust(d); err != nil {
			t.Fatal(err)
		}
	}
	h.Prompt(sid, "second")
	if text := looptest.AgentText(h.Editor.Updates(sid)); !strings.Contains(text, "Prompt blocked by a hook: blocked by project") {
		t.Fatalf("the trusted hook did not run: %q", text)
	}
	if len(h.Model.Requests()) != 1 {
		t.Fatalf("the blocked prompt reached the model")
	}

	write("blocked by an edited project hook")
	h.Prompt(sid, "third")
	text = looptest.AgentText(h.Editor.Updates(sid))
	if strings.Contains(text, "Prompt blocked by a hook: blocked by an edited project hook") {
		t.Fatalf("the edited hook ran: %q", text)
	}
	if !strings.Contains(text, "changed since it was trusted") || len(h.Model.Requests()) != 2 {
		t.Fatalf("the edited hook was not skipped and reported: %q (%d requests)", text, len(h.Model.Requests()))
	}
}

// TestCodexBridgeOtherEvents: PermissionRequest answers instead of the
// editor, SubagentStart context reaches the child, a SubagentStop block
// continues the child, PreCompact continue:false refuses /compact, and
// SessionEnd runs when the session closes.
func TestCodexBridgeOtherEvents(t *testing.T) {
	ended := filepath.Join(t.TempDir(), "session-end")
	path := codexFile(t, map[string]string{
		"PermissionRequest": `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}'`,
		"SubagentStart":     `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":"child codex context"}}'`,
		"SubagentStop":      `if grep -q '"stop_hook_active":true'; then exit 0; fi; echo '{"decision":"block","reason":"child: check again"}'`,
		"PreCompact":        `cat >/dev/null; echo '{"continue":false,"stopReason":"no compaction here"}'`,
		"SessionEnd":        `cat > ` + ended,
	})
	p := hooks.NewPipeline()
	codex.New(codex.Config{Path: path}, codexOptions("codex-hooks")).Register(p)
	h := looptest.NewHarness(t, looptest.Options{Hooks: p},
		looptest.StreamBlocks("tool_use", bashEcho("toolu_1", "allowed by hook"),
			looptest.ToolUse("toolu_task", "Task", map[string]any{"description": "look", "prompt": "Look around", "subagent_type": "explorer"})),
		looptest.ReplyText("child done"),
		looptest.ReplyText("child really done"),
		looptest.ReplyText("all done"))
	asked := 0
	h.Editor.OnPermission = func(ctx context.Context, r *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		asked++
		return looptest.Allow(acp.PermRejectOnce)(ctx, r)
	}
	sid := h.NewSession()
	h.Prompt(sid, "go")
	reqs := h.Model.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4 (parent, child, child continued, parent)", len(reqs))
	}
	if asked != 0 {
		t.Errorf("the editor was asked %d times; the PermissionRequest hook allows", asked)
	}
	if text, isErr := looptest.ToolResult(t, reqs[3], "toolu_1"); isErr || !strings.Contains(text, "allowed by hook") {
		t.Errorf("Bash result = %q (error %v)", text, isErr)
	}
	if child := jsonOf(reqs[1]["messages"]); !strings.Contains(child, "child codex context") {
		t.Errorf("SubagentStart context missing from the child's request: %s", child)
	}
	if cont := jsonOf(reqs[2]["messages"]); !strings.Contains(cont, "child: check again") {
		t.Errorf("SubagentStop reason missing: %s", cont)
	}
	if text, _ := looptest.ToolResult(t, reqs[3], "toolu_task"); text != "child really done" {
		t.Errorf("Task result = %q", text)
	}

	h.Prompt(sid, "/compact")
	if text := looptest.AgentText(h.Editor.Updates(sid)); !strings.Contains(text, "Compaction was blocked by a hook: no compaction here") {
		t.Errorf("PreCompact: %q", text)
	}
	if len(h.Model.Requests()) != 4 {
		t.Errorf("compaction reached the model")
	}

	if err := h.Editor.Call(h.Ctx, acp.MethodSessionClose, acp.CloseSessionRequest{SessionID: sid}, nil); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(ended)
	if err != nil || !strings.Contains(string(data), `"hook_event_name":"SessionEnd"`) || !strings.Contains(string(data), `"reason":"other"`) {
		t.Errorf("SessionEnd input = %s (%v)", data, err)
	}
}
