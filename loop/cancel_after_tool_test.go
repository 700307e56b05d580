package loop_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
	"github.com/cordis-agent/cordis/loop/tools"
	"github.com/cordis-agent/cordis/sessionlog"
)

// touchTool creates the file its input names, then reports on acted and
// returns only once the turn is cancelled: a tool whose side effect is
// done when the cancel lands, before the loop reads its result.
type touchTool struct{ acted chan<- string }

func (touchTool) Name() string        { return "Touch" }
func (touchTool) Description() string { return "Creates a file." }
func (touchTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)
}
func (touchTool) Kind() tools.Kind { return tools.KindEdit }
func (touchTool) ReadOnly() bool   { return false }
func (touchTool) Describe(*tools.Env, json.RawMessage) tools.Description {
	return tools.Description{Title: "Touch"}
}
func (t touchTool) Run(ctx context.Context, _ *tools.Env, input json.RawMessage) tools.Result {
	var in struct{ Path string }
	json.Unmarshal(input, &in)
	if err := os.WriteFile(in.Path, []byte("touched\n"), 0o644); err != nil {
		return tools.Errorf("Touch: %v", err)
	}
	t.acted <- in.Path
	<-ctx.Done()
	return tools.Result{Text: "Touched " + in.Path + "."}
}

// A cancel that lands after a tool acted but before the loop read its
// result: the log, the editor, the PostToolUse hook and the next model
// request all say the call completed with its own result (before the fix
// they said "The user interrupted this tool call." although the file had
// been written); the call after it in the same response never runs and
// is reported as not run.
func TestCancelAsAToolFinishesKeepsItsResult(t *testing.T) {
	dir := t.TempDir()
	fileA, fileB := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	acted := make(chan string, 2)
	var mu sync.Mutex
	var posts []hooks.Input
	observe := hookFunc(func(_ context.Context, in *hooks.Input) hooks.Decision {
		if in.Event == hooks.PostToolUse || in.Event == hooks.PostToolUseFailure {
			mu.Lock()
			posts = append(posts, *in)
			mu.Unlock()
		}
		return hooks.Decision{}
	})
	h := looptest.NewHarness(t, looptest.Options{
		Mode:   loop.ModeBypass,
		Hooks:  observe,
		Config: func(c *loop.Config) { c.Tools = append(tools.Builtin(), touchTool{acted}) },
	},
		looptest.StreamBlocks("tool_use",
			looptest.ToolUse("toolu_a", "Touch", map[string]any{"path": fileA}),
			looptest.ToolUse("toolu_b", "Touch", map[string]any{"path": fileB})),
		looptest.ReplyText("Noted."))
	sid := h.NewSession()
	done := make(chan acp.StopReason, 1)
	go func() { done <- h.Prompt(sid, "touch both") }()
	select {
	case <-acted:
	case <-time.After(20 * time.Second):
		t.Fatal("the tool never ran")
	}
	h.Editor.Notify(h.Ctx, acp.MethodSessionCancel, acp.CancelNotification{SessionID: sid})
	if stop := <-done; stop != acp.StopCancelled {
		t.Fatalf("stop = %q, want cancelled", stop)
	}
	if _, err := os.Stat(fileB); err == nil {
		t.Error("the call after the cancel ran")
	}

	// The editor: the first call completed with its result, the second
	// failed as not run.
	ups := h.Editor.Updates(sid)
	if last := lastUpdate(t, ups, "toolu_a"); last.Status != acp.ToolStatusCompleted || updateText(last) != "Touched "+fileA+"." {
		t.Errorf("the editor was last shown %q %q for the call that acted", last.Status, updateText(last))
	}
	if len(toolUpdates(ups, "toolu_b")) != 0 {
		t.Errorf("the call that never ran has updates: %+v", toolUpdates(ups, "toolu_b"))
	}

	// The log: the same result, completed.
	results := logData(logEvents(t, h.StateDir, sid, ""), sessionlog.TypeToolResult)
	if len(results) != 1 || results[0]["toolCallId"] != "toolu_a" || results[0]["status"] != "completed" || results[0]["output"] != "Touched "+fileA+"." {
		t.Errorf("tool/result events = %v", results)
	}

	// PostToolUse saw what the tool returned.
	mu.Lock()
	if len(posts) != 1 || posts[0].Event != hooks.PostToolUse || posts[0].ToolOutput != "Touched "+fileA+"." {
		for _, p := range posts {
			t.Errorf("the Post seams saw %s %q", p.Event, p.ToolOutput)
		}
		t.Errorf("want one PostToolUse with the tool's output")
	}
	mu.Unlock()

	// The next request: the result, then why the turn stopped; the call
	// that never ran is answered as not run.
	h.Prompt(sid, "what happened?")
	reqs := h.Model.Requests()
	text, isErr := looptest.ToolResult(t, reqs[len(reqs)-1], "toolu_a")
	if isErr || !strings.HasPrefix(text, "Touched "+fileA+".") || !strings.Contains(text, "cancelled the turn as this tool call finished") || strings.Contains(text, "interrupted") {
		t.Errorf("the model got %q (error %v) for the call that acted", text, isErr)
	}
	if text, isErr := looptest.ToolResult(t, reqs[len(reqs)-1], "toolu_b"); !isErr || !strings.Contains(text, "before it ran") {
		t.Errorf("the model got %q (error %v) for the call that never ran", text, isErr)
	}

	// session/load replays the call as completed with its result.
	closeSession(t, h, sid)
	h2 := looptest.NewHarness(t, looptest.Options{Config: func(c *loop.Config) { c.StateDir = h.StateDir }})
	if err := h2.Editor.Call(h2.Ctx, acp.MethodSessionLoad, acp.LoadSessionRequest{SessionID: sid, Cwd: h.Cwd, MCPServers: []acp.MCPServer{}}, &acp.LoadSessionResponse{}); err != nil {
		t.Fatal(err)
	}
	if last := lastUpdate(t, h2.Editor.Updates(sid), "toolu_a"); last.Status != acp.ToolStatusCompleted || !strings.Contains(updateText(last), "Touched") {
		t.Errorf("session/load shows %q %q for the call that acted", last.Status, updateText(last))
	}
}
