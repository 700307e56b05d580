package loop_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/acp/acptest"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
)

// The tests here drive the loop through an editor that behaves like Zed:
// Zed's initialize capabilities, fs and terminals served for real, and a
// session/update that names a released terminal failing the test.

func zedHarness(t *testing.T, mode string, script ...looptest.Reply) (*looptest.Harness, *acptest.Terminals) {
	t.Helper()
	return zedHarnessIn(t, looptest.Options{Mode: mode, Caps: acptest.ZedCapabilities()}, script...)
}

func zedHarnessIn(t *testing.T, o looptest.Options, script ...looptest.Reply) (*looptest.Harness, *acptest.Terminals) {
	t.Helper()
	o.Caps = acptest.ZedCapabilities()
	h := looptest.NewHarness(t, o)
	for _, r := range script {
		h.Model.Append(r.Handler())
	}
	ts := acptest.ServeLikeZed(h.Editor, nil)
	t.Cleanup(ts.KillAll)
	return h, ts
}

func callCards(updates []acp.SessionUpdate, id string) (calls []*acp.ToolCall, ups []*acp.ToolCallUpdate) {
	for _, u := range updates {
		switch u := u.(type) {
		case *acp.ToolCall:
			if u.ToolCallID == id {
				calls = append(calls, u)
			}
		case *acp.ToolCallUpdate:
			if u.ToolCallID == id {
				ups = append(ups, u)
			}
		}
	}
	return calls, ups
}

func reply(stop string, blocks ...looptest.Block) looptest.Reply {
	return looptest.Reply{Stop: stop, Blocks: blocks}
}

// A Bash call runs in a Zed terminal: the terminal is embedded while it
// runs, its label is set to the command by a title update once embedded,
// and the final update (after terminal/release) names no terminal. A
// reload in a new process replays the output as text.
func TestZedBashTerminalIsNeverReferencedAfterRelease(t *testing.T) {
	h, _ := zedHarness(t, loop.ModeBypass,
		reply("tool_use", looptest.ToolUse("toolu_sh", "Bash", map[string]any{"command": "echo from-the-terminal", "description": "Say it"})),
		reply("end_turn", looptest.Text("done")))
	sid := h.NewSession()
	if stop := h.Prompt(sid, "run it"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	_, ups := callCards(h.Editor.Updates(sid), "toolu_sh")
	embedded, labelled := -1, -1
	for i, u := range ups {
		for _, c := range u.Content {
			if c.Type == "terminal" {
				embedded = i
			}
		}
		if u.Title == "echo from-the-terminal" && embedded >= 0 {
			labelled = i
		}
	}
	if embedded < 0 || labelled <= embedded {
		t.Errorf("want the terminal embedded, then a title update with the command; updates %s", jsonOf(ups))
	}
	final := ups[len(ups)-1]
	if final.Status != acp.ToolStatusCompleted || len(final.Content) != 0 {
		t.Errorf("final update = %s, want completed without content (the terminal stays shown)", jsonOf(final))
	}

	// A new process (a new agent on the same state) has no terminal of
	// the old one: the replay shows the output as text.
	h.Editor.Close() // the old process ends and lets go of the log
	h2, _ := zedHarnessIn(t, looptest.Options{Mode: loop.ModeBypass, Config: func(c *loop.Config) { c.StateDir = h.StateDir }})
	var resp acp.LoadSessionResponse
	if err := h2.Editor.Call(h2.Ctx, acp.MethodSessionLoad, acp.LoadSessionRequest{SessionID: sid, Cwd: h.Cwd, MCPServers: []acp.MCPServer{}}, &resp); err != nil {
		t.Fatal(err)
	}
	_, replayed := callCards(h2.Editor.Updates(sid), "toolu_sh")
	if len(replayed) != 1 || len(replayed[0].Content) != 1 || !strings.Contains(replayed[0].Content[0].Content.Text, "from-the-terminal") {
		t.Errorf("replayed result = %s, want the output as text", jsonOf(replayed))
	}
}

// Cancelling a command that runs in a Zed terminal releases it, and no
// update after that names it.
func TestZedCancelledBashDoesNotReferenceTheReleasedTerminal(t *testing.T) {
	h, _ := zedHarness(t, loop.ModeBypass,
		reply("tool_use", looptest.ToolUse("toolu_sh", "Bash", map[string]any{"command": "sleep 30"})))
	created := make(chan struct{}, 1)
	serve := h.Editor.OnRequest
	h.Editor.OnRequest = func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		res, err := serve(ctx, method, params)
		if method == acp.MethodTerminalCreate {
			created <- struct{}{}
		}
		return res, err
	}
	sid := h.NewSession()
	stopped := make(chan acp.StopReason, 1)
	go func() {
		stop, _ := h.Editor.Prompt(h.Ctx, sid, "wait")
		stopped <- stop
	}()
	<-created
	if err := h.Editor.Notify(h.Ctx, acp.MethodSessionCancel, acp.CancelNotification{SessionID: sid}); err != nil {
		t.Fatal(err)
	}
	if stop := <-stopped; stop != acp.StopCancelled {
		t.Fatalf("stop = %q", stop)
	}
	_, ups := callCards(h.Editor.Updates(sid), "toolu_sh")
	if final := ups[len(ups)-1]; final.Status != acp.ToolStatusFailed {
		t.Errorf("final update = %s, want failed", jsonOf(final))
	}
}

// In plan mode the model is offered ExitPlanMode; the user is asked with
// the plan shown, and allowing it switches the mode (both updates Zed
// reads) and the same turn goes on to write the file without asking.
func TestZedExitPlanModeSwitchesModeAndContinues(t *testing.T) {
	h, _ := zedHarness(t, loop.ModePlan)
	target := filepath.Join(h.Cwd, "notes.txt")
	h.Model.Append(
		reply("tool_use", looptest.ToolUse("toolu_plan", "ExitPlanMode", map[string]any{"plan": "1. Write notes.txt"})).Handler(),
		reply("tool_use", looptest.ToolUse("toolu_w", "Write", map[string]any{"file_path": target, "content": "hi\n"})).Handler(),
		reply("end_turn", looptest.Text("done")).Handler())
	var asked []*acp.RequestPermissionRequest
	h.Editor.OnPermission = func(_ context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		asked = append(asked, req)
		return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: loop.ModeAcceptEdits}}, nil
	}
	sid := h.NewSession()
	if stop := h.Prompt(sid, "plan then do it"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	if len(asked) != 1 || asked[0].ToolCall.Content[0].Content.Text != "1. Write notes.txt" {
		t.Fatalf("permission requests = %s, want one showing the plan", jsonOf(asked))
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "hi\n" {
		t.Errorf("notes.txt = %q, %v", b, err)
	}
	var modeUpdate, configUpdate bool
	for _, u := range h.Editor.Updates(sid) {
		switch u := u.(type) {
		case *acp.CurrentModeUpdate:
			modeUpdate = modeUpdate || u.CurrentModeID == loop.ModeAcceptEdits
		case *acp.ConfigOptionUpdate:
			for _, o := range u.ConfigOptions {
				configUpdate = configUpdate || (o.ID == "mode" && o.CurrentValue == loop.ModeAcceptEdits)
			}
		}
	}
	if !modeUpdate || !configUpdate {
		t.Errorf("current_mode_update %v, config_option_update %v; want both to say acceptEdits", modeUpdate, configUpdate)
	}
	reqs := h.Model.Requests()
	if !offers(reqs[0], "ExitPlanMode") || offers(reqs[2], "ExitPlanMode") {
		t.Errorf("ExitPlanMode offered in plan mode %v, after it %v; want only in plan mode", offers(reqs[0], "ExitPlanMode"), offers(reqs[2], "ExitPlanMode"))
	}
}

func offers(req map[string]any, name string) bool {
	tools, _ := req["tools"].([]any)
	for _, tl := range tools {
		if tl.(map[string]any)["name"] == name {
			return true
		}
	}
	return false
}

// TodoWrite shows the plan and nothing else: no card with the text meant
// for the model (which still gets it).
func TestZedTodoWriteSendsOnlyThePlan(t *testing.T) {
	todos := []any{map[string]any{"content": "Run the tests", "status": "in_progress", "activeForm": "Running the tests"}}
	h, _ := zedHarness(t, "",
		reply("tool_use", looptest.ToolUse("toolu_todo", "TodoWrite", map[string]any{"todos": todos})),
		reply("end_turn", looptest.Text("ok")))
	sid := h.NewSession()
	h.Prompt(sid, "plan")
	calls, ups := callCards(h.Editor.Updates(sid), "toolu_todo")
	if len(calls)+len(ups) != 0 {
		t.Errorf("TodoWrite sent cards: %s %s", jsonOf(calls), jsonOf(ups))
	}
	var plans int
	for _, u := range h.Editor.Updates(sid) {
		if _, ok := u.(*acp.PlanUpdate); ok {
			plans++
		}
	}
	if plans != 1 {
		t.Errorf("%d plan updates, want 1", plans)
	}
	if text, _ := looptest.ToolResult(t, h.Model.Requests()[1], "toolu_todo"); !strings.Contains(text, "Keep using it") {
		t.Errorf("the model's result lost its text: %q", text)
	}
}

// Read's paging hint reaches the model, not the card; a later window is
// asked of the editor with line and limit; the location Zed follows is
// the 0-based row of the first line read.
func TestZedReadWindowAndHint(t *testing.T) {
	h, _ := zedHarness(t, "")
	path := filepath.Join(h.Cwd, "long.txt")
	var b strings.Builder
	for i := 1; i <= 3000; i++ {
		b.WriteString("line\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	h.Model.Append(
		reply("tool_use", looptest.ToolUse("toolu_r1", "Read", map[string]any{"file_path": path})).Handler(),
		reply("tool_use", looptest.ToolUse("toolu_r2", "Read", map[string]any{"file_path": path, "offset": 2500, "limit": 10})).Handler(),
		reply("end_turn", looptest.Text("ok")).Handler())
	sid := h.NewSession()
	h.Prompt(sid, "read")
	reqs := h.Model.Requests()
	if text, _ := looptest.ToolResult(t, reqs[1], "toolu_r1"); !strings.Contains(text, "Use offset and limit") {
		t.Errorf("the model did not get the paging hint: %q", tail(text))
	}
	_, ups := callCards(h.Editor.Updates(sid), "toolu_r1")
	if card := ups[len(ups)-1].Content[0].Content.Text; strings.Contains(card, "Use offset and limit") {
		t.Errorf("the card shows the model's hint: %q", tail(card))
	}
	var window *acp.ReadTextFileRequest
	for _, c := range h.Editor.Calls() {
		var r acp.ReadTextFileRequest
		if c.Method == acp.MethodFSReadTextFile && json.Unmarshal(c.Params, &r) == nil && r.Line != nil {
			window = &r
		}
	}
	if window == nil || *window.Line != 2500 || window.Limit == nil || *window.Limit != 11 {
		t.Errorf("fs/read_text_file for the window = %s, want line 2500, limit 11", jsonOf(window))
	}
	if text, _ := looptest.ToolResult(t, reqs[2], "toolu_r2"); !strings.HasPrefix(text, "  2500\tline") || !strings.Contains(text, "2500-2509") {
		t.Errorf("window result = %q", text)
	}
	calls, _ := callCards(h.Editor.Updates(sid), "toolu_r2")
	if loc := calls[0].Locations; len(loc) != 1 || loc[0].Line == nil || *loc[0].Line != 2499 {
		t.Errorf("locations = %s, want line 2499 (Zed's 0-based row of line 2500)", jsonOf(loc))
	}
}

// The chunks of one model response share a messageId; the next response
// has another.
func TestZedChunksCarryMessageIDs(t *testing.T) {
	h, _ := zedHarness(t, loop.ModeBypass,
		reply("tool_use", looptest.Thinking("hmm"), looptest.Text("first"), looptest.ToolUse("toolu_g", "Glob", map[string]any{"pattern": "*"})),
		reply("end_turn", looptest.Text("second")))
	sid := h.NewSession()
	h.Prompt(sid, "go")
	var textIDs []string
	thoughtID := ""
	for _, u := range h.Editor.Updates(sid) {
		switch u := u.(type) {
		case *acp.AgentMessageChunk:
			if len(textIDs) == 0 || textIDs[len(textIDs)-1] != u.MessageID {
				textIDs = append(textIDs, u.MessageID)
			}
		case *acp.AgentThoughtChunk:
			thoughtID = u.MessageID
		}
	}
	if len(textIDs) != 2 || textIDs[0] == "" || textIDs[1] == "" || textIDs[0] == textIDs[1] || thoughtID != textIDs[0] {
		t.Errorf("message ids of the text chunks %q, of the thought %q; want one per response, shared by its thought and text", textIDs, thoughtID)
	}
}

// A client's error details (data) reach the tool result.
func TestZedClientErrorDataKept(t *testing.T) {
	h, _ := zedHarness(t, "")
	path := filepath.Join(h.Cwd, "locked.txt")
	if err := os.WriteFile(path, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.Model.Append(
		reply("tool_use", looptest.ToolUse("toolu_r", "Read", map[string]any{"file_path": path})).Handler(),
		reply("end_turn", looptest.Text("ok")).Handler())
	h.Editor.OnRequest = func(context.Context, string, json.RawMessage) (any, error) {
		return nil, &acp.Error{Code: acp.CodeInternalError, Message: "Internal error", Data: map[string]any{"details": "buffer is locked by another edit"}}
	}
	sid := h.NewSession()
	h.Prompt(sid, "read")
	if text, isErr := looptest.ToolResult(t, h.Model.Requests()[1], "toolu_r"); !isErr || !strings.Contains(text, "buffer is locked") {
		t.Errorf("tool result = %q (error %v), want the client's details", text, isErr)
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func tail(s string) string {
	if len(s) > 200 {
		return "…" + s[len(s)-200:]
	}
	return s
}

// A subagent's tool calls name the Task (Agent) call they belong to in
// _meta.parentToolCallId, so a client can nest them under it.
func TestZedSubagentCallsNameTheirParent(t *testing.T) {
	h, _ := zedHarness(t, loop.ModeBypass,
		reply("tool_use", looptest.ToolUse("toolu_task", "Agent", map[string]any{"description": "Look around", "prompt": "List the files"})),
		reply("tool_use", looptest.ToolUse("toolu_child", "Glob", map[string]any{"pattern": "*"})),
		reply("end_turn", looptest.Text("nothing here")),
		reply("end_turn", looptest.Text("done")))
	sid := h.NewSession()
	if stop := h.Prompt(sid, "explore"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	calls, ups := callCards(h.Editor.Updates(sid), "toolu_child")
	if len(calls) != 1 || len(ups) == 0 {
		t.Fatalf("child cards: %s %s", jsonOf(calls), jsonOf(ups))
	}
	if calls[0].Meta["parentToolCallId"] != "toolu_task" || ups[len(ups)-1].Meta["parentToolCallId"] != "toolu_task" {
		t.Errorf("child call _meta = %v / %v, want parentToolCallId toolu_task", calls[0].Meta, ups[len(ups)-1].Meta)
	}
	parent, _ := callCards(h.Editor.Updates(sid), "toolu_task")
	if len(parent) != 1 || parent[0].Meta != nil {
		t.Errorf("the Task call itself = %s, want no parent", jsonOf(parent))
	}
}
