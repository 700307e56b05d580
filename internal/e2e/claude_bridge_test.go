package e2e_test

// Full turns through the Claude Code hook bridge (bridge/claude) registered
// on a hooks.Pipeline, as cmd/cordis assembles it.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/bridge/claude"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
)

// claudeHooks writes a Claude Code hooks file with one command per event
// (matcher "*") and returns a pipeline with the bridge registered on it.
func claudeHooks(t *testing.T, byEvent map[hooks.Event]map[string]any) hooks.Seams {
	t.Helper()
	cfg := map[string]any{}
	for ev, h := range byEvent {
		h["type"] = "command"
		cfg[string(ev)] = []any{map[string]any{"matcher": "*", "hooks": []any{h}}}
	}
	b, _ := json.Marshal(map[string]any{"hooks": cfg})
	path := filepath.Join(t.TempDir(), "hooks.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	p := hooks.NewPipeline()
	claude.New(claude.Config{Path: path}, claude.Options{Grace: 200 * time.Millisecond}).Register(p)
	return p
}

func TestClaudeBridgePreToolUseExit2DeniesWithStderr(t *testing.T) {
	seams := claudeHooks(t, map[hooks.Event]map[string]any{
		hooks.PreToolUse: {"command": `if grep -q forbidden; then echo "forbidden by policy" >&2; exit 2; fi`},
	})
	h := looptest.NewHarness(t, looptest.Options{Hooks: seams, Mode: loop.ModeBypass},
		looptest.StreamBlocks("tool_use", bashEcho("toolu_1", "forbidden"), bashEcho("toolu_2", "fine")),
		looptest.ReplyText("ok"))
	h.Prompt(h.NewSession(), "x")
	req := h.Model.Requests()[1]
	if text, isErr := looptest.ToolResult(t, req, "toolu_1"); !isErr || !strings.Contains(text, "forbidden by policy") {
		t.Fatalf("denied result = %q (error %v)", text, isErr)
	}
	if text, isErr := looptest.ToolResult(t, req, "toolu_2"); isErr || !strings.Contains(text, "fine") {
		t.Fatalf("allowed result = %q (error %v)", text, isErr)
	}
}

func TestClaudeBridgeAskReachesTheEditorAndSystemMessageIsShown(t *testing.T) {
	seams := claudeHooks(t, map[hooks.Event]map[string]any{
		hooks.PreToolUse: {"command": `cat >/dev/null; echo '{"systemMessage":"policy: confirm shell commands","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"confirm"}}'`},
	})
	h := looptest.NewHarness(t, looptest.Options{Hooks: seams, Mode: loop.ModeBypass}, looptest.StreamBlocks("tool_use", bashEcho("toolu_1", "a")), looptest.ReplyText("ok"))
	asked := 0
	h.Editor.OnPermission = func(ctx context.Context, p *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		asked++
		return looptest.Allow(acp.PermAllowOnce)(ctx, p)
	}
	sid := h.NewSession()
	h.Prompt(sid, "x")
	if asked != 1 {
		t.Fatalf("asked %d times, want 1 (ask is not downgraded by bypass mode)", asked)
	}
	if got := looptest.AgentText(h.Editor.Updates(sid)); !strings.Contains(got, "policy: confirm shell commands") {
		t.Fatalf("systemMessage not shown: %q", got)
	}
}

func TestClaudeBridgeStopBlockHonoursStopHookActive(t *testing.T) {
	// The canonical guard: exit 0 when stop_hook_active is true.
	seams := claudeHooks(t, map[hooks.Event]map[string]any{
		hooks.Stop: {"command": `if grep -q '"stop_hook_active":true'; then exit 0; fi; echo '{"decision":"block","reason":"run the tests first"}'`},
	})
	h := looptest.NewHarness(t, looptest.Options{Hooks: seams}, looptest.ReplyText("All done."), looptest.ReplyText("Tests pass."))
	if stop := h.Prompt(h.NewSession(), "fix it"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	reqs := h.Model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	second, _ := json.Marshal(reqs[1]["messages"])
	if !strings.Contains(string(second), "run the tests first") {
		t.Fatalf("the block reason did not reach the model: %s", second)
	}
}

func TestClaudeBridgeUserPromptContextAndHangingHook(t *testing.T) {
	seams := claudeHooks(t, map[hooks.Event]map[string]any{
		hooks.UserPromptSubmit: {"command": `cat >/dev/null; echo "branch: main"`},
		// Killed at its timeout; the permission flow then runs as usual.
		hooks.PreToolUse: {"command": `sleep 30 & sleep 30`, "timeout": 0.5},
	})
	h := looptest.NewHarness(t, looptest.Options{Hooks: seams, Mode: loop.ModeBypass}, looptest.StreamBlocks("tool_use", bashEcho("toolu_1", "went on")), looptest.ReplyText("ok"))
	start := time.Now()
	h.Prompt(h.NewSession(), "x")
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("the turn waited %s for a hanging hook", d)
	}
	reqs := h.Model.Requests()
	first, _ := json.Marshal(reqs[0]["messages"])
	if !strings.Contains(string(first), "branch: main") {
		t.Fatalf("UserPromptSubmit context missing: %s", first)
	}
	if text, isErr := looptest.ToolResult(t, reqs[1], "toolu_1"); isErr || !strings.Contains(text, "went on") {
		t.Fatalf("result = %q (error %v)", text, isErr)
	}
}

func TestClaudeBridgeLoudHookNeverTouchesTheProtocol(t *testing.T) {
	seams := claudeHooks(t, map[hooks.Event]map[string]any{
		hooks.PostToolUse: {"command": `cat >/dev/null; head -c 10000000 /dev/zero | tr '\0' x; head -c 10000000 /dev/zero | tr '\0' y >&2; echo direct >/dev/stdout`},
	})
	h := looptest.NewHarness(t, looptest.Options{Hooks: seams, Mode: loop.ModeBypass}, looptest.StreamBlocks("tool_use", bashEcho("toolu_1", "a")), looptest.ReplyText("ok"))
	h.Prompt(h.NewSession(), "x")
	// The recording editor fails the test on any non-JSON-RPC line; check
	// the volume too.
	total := 0
	for _, f := range h.Editor.Frames() {
		total += len(f)
	}
	if total > 1<<20 {
		t.Fatalf("%d bytes on the protocol stream", total)
	}
	if text, _ := looptest.ToolResult(t, h.Model.Requests()[1], "toolu_1"); len(text) > 1000 {
		t.Fatalf("hook stdout leaked into the tool result: %d bytes", len(text))
	}
}

// TestClaudeBridgeMissingFileChangesNothing runs the same turn with no
// bridge and with a bridge on a file that does not exist, and compares the
// protocol streams.
func TestClaudeBridgeMissingFileChangesNothing(t *testing.T) {
	run := func(seams hooks.Seams) []string {
		h := looptest.NewHarness(t, looptest.Options{Hooks: seams, Mode: loop.ModeBypass}, looptest.StreamBlocks("tool_use", bashEcho("toolu_1", "a")), looptest.ReplyText("done"))
		sid := h.NewSession()
		h.Prompt(sid, "x")
		var out []string
		ids := regexp.MustCompile(regexp.QuoteMeta(sid))
		// Message ids are random per response.
		msgIDs := regexp.MustCompile(`"messageId":"msg_[A-Z0-9]+"`)
		for _, f := range h.Editor.Frames() {
			out = append(out, msgIDs.ReplaceAllString(ids.ReplaceAllString(string(f), "SESSION"), `"messageId":"MSG"`))
		}
		return out
	}
	without := run(hooks.NewPipeline())
	p := hooks.NewPipeline()
	claude.New(claude.Config{Path: filepath.Join(t.TempDir(), "missing.json")}, claude.Options{}).Register(p)
	with := run(p)
	if strings.Join(without, "\n") != strings.Join(with, "\n") {
		t.Fatalf("transcripts differ:\nwithout:\n%s\nwith:\n%s", strings.Join(without, "\n"), strings.Join(with, "\n"))
	}
}
