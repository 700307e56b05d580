package loop_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/llm/anthropic"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
	"github.com/sourcegraph/jsonrpc2"
)

func TestTextTurnStreamsAndReportsUsage(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{}, looptest.ReplyText("Hello from the model."))
	sid := h.NewSession()
	if stop := h.Prompt(sid, "hi"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	ups := h.Editor.Updates(sid)
	if got := looptest.AgentText(ups); got != "Hello from the model." {
		t.Fatalf("agent text = %q", got)
	}
	chunks := 0
	var usage *acp.UsageUpdate
	for _, u := range ups {
		switch u := u.(type) {
		case *acp.AgentMessageChunk:
			chunks++
		case *acp.UsageUpdate:
			usage = u
		}
	}
	if chunks < 2 {
		t.Errorf("text arrived in %d chunk(s); want it streamed as it arrives", chunks)
	}
	if usage == nil || usage.Used != 120 || usage.Size != 200000 {
		t.Errorf("usage_update = %+v, want used 120 of 200000", usage)
	}
	req := h.Model.Requests()[0]
	if req["model"] != "claude-test" || req["stream"] != true {
		t.Errorf("request model/stream = %v/%v", req["model"], req["stream"])
	}
	h.Model.CheckAllUsed()
}

func TestProjectInstructionsInSystemPromptInOrder(t *testing.T) {
	// The built-in context-injector reads them (cordis runs it by default).
	pipe, _ := withBuiltins(t, nil)
	h := looptest.NewHarness(t, looptest.Options{Hooks: pipe}, looptest.ReplyText("ok"), looptest.ReplyText("ok again"))
	os.WriteFile(filepath.Join(h.Cwd, "CLAUDE.md"), []byte("claude rules"), 0o644)
	os.WriteFile(filepath.Join(h.Cwd, "AGENTS.md"), []byte("agents rules"), 0o644)
	sid := h.NewSession()
	h.Prompt(sid, "one")
	h.Prompt(sid, "two")
	reqs := h.Model.Requests()
	sys1, _ := json.Marshal(reqs[0]["system"])
	sys2, _ := json.Marshal(reqs[1]["system"])
	a, c := strings.Index(string(sys1), "agents rules"), strings.Index(string(sys1), "claude rules")
	if a < 0 || c < 0 || a > c {
		t.Fatalf("system prompt should hold AGENTS.md then CLAUDE.md: %s", sys1)
	}
	if string(sys1) != string(sys2) {
		t.Errorf("system prompt changed between requests")
	}
	// The second request carries the whole conversation.
	if msgs := reqs[1]["messages"].([]any); len(msgs) != 3 {
		t.Errorf("second request has %d messages, want 3 (user, assistant, user)", len(msgs))
	}
}

func bashEcho(id, text string) looptest.Block {
	return looptest.ToolUse(id, "Bash", map[string]any{"command": "echo " + text})
}

func TestToolCallApprovedRunsAndFeedsResultBack(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{},
		looptest.StreamBlocks("tool_use", looptest.Text("Running it."), bashEcho("toolu_1", "hi-there")),
		looptest.ReplyText("Done."))
	var asked []*acp.RequestPermissionRequest
	h.Editor.OnPermission = func(ctx context.Context, p *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		asked = append(asked, p)
		return looptest.Allow(acp.PermAllowOnce)(ctx, p)
	}
	sid := h.NewSession()
	if stop := h.Prompt(sid, "run echo"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	if len(asked) != 1 || asked[0].ToolCall.ToolCallID != "toolu_1" || len(asked[0].Options) != 4 {
		t.Fatalf("permission requests = %+v", asked)
	}
	ups := h.Editor.Updates(sid)
	var call *acp.ToolCall
	for _, u := range ups {
		if c, ok := u.(*acp.ToolCall); ok {
			call = c
		}
	}
	if call == nil || call.Kind != acp.ToolKindExecute || call.Status != acp.ToolStatusPending {
		t.Fatalf("tool_call = %+v", call)
	}
	statuses := []acp.ToolCallStatus{}
	for _, u := range toolUpdates(ups, "toolu_1") {
		if u.Status != "" {
			statuses = append(statuses, u.Status)
		}
	}
	if fmt.Sprint(statuses) != "[in_progress completed]" {
		t.Fatalf("statuses = %v", statuses)
	}
	text, isErr := looptest.ToolResult(t, h.Model.Requests()[1], "toolu_1")
	if isErr || !strings.Contains(text, "hi-there") {
		t.Fatalf("tool_result = %q (error %v)", text, isErr)
	}
}

func TestToolCallRejectedIsAnErrorResultAndAlwaysIsRemembered(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{},
		looptest.StreamBlocks("tool_use", bashEcho("toolu_1", "a")),
		looptest.StreamBlocks("tool_use", bashEcho("toolu_2", "b")),
		looptest.ReplyText("Understood."))
	n := 0
	h.Editor.OnPermission = func(ctx context.Context, p *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		n++
		return looptest.Allow(acp.PermRejectAlways)(ctx, p)
	}
	sid := h.NewSession()
	h.Prompt(sid, "x")
	reqs := h.Model.Requests()
	text, isErr := looptest.ToolResult(t, reqs[1], "toolu_1")
	if !isErr || !strings.Contains(text, "rejected") {
		t.Fatalf("tool_result = %q (error %v)", text, isErr)
	}
	if _, isErr := looptest.ToolResult(t, reqs[2], "toolu_2"); !isErr {
		t.Fatal("second Bash call ran after reject_always")
	}
	if n != 1 {
		t.Fatalf("asked %d times, want 1 (reject_always remembered)", n)
	}
	last := toolUpdates(h.Editor.Updates(sid), "toolu_1")
	if last[len(last)-1].Status != acp.ToolStatusFailed {
		t.Fatalf("rejected call status = %q, want failed", last[len(last)-1].Status)
	}
}

func TestPermissionRequestFailureDenies(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{}, looptest.StreamBlocks("tool_use", bashEcho("toolu_1", "a")), looptest.ReplyText("ok"))
	h.Editor.OnPermission = func(context.Context, *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		return nil, errors.New("editor exploded")
	}
	sid := h.NewSession()
	h.Prompt(sid, "x")
	text, isErr := looptest.ToolResult(t, h.Model.Requests()[1], "toolu_1")
	if !isErr || !strings.Contains(text, "not run") {
		t.Fatalf("tool_result = %q (error %v), want a denial", text, isErr)
	}
}

func TestPreToolUseDenyAndAllow(t *testing.T) {
	seams := hookFunc(func(ctx context.Context, in *hooks.Input) hooks.Decision {
		if in.Event != hooks.PreToolUse {
			return hooks.Decision{}
		}
		var input struct{ Command string }
		json.Unmarshal(in.ToolInput, &input)
		if strings.Contains(input.Command, "forbidden") {
			return hooks.Decision{Permission: hooks.Deny, Reason: "no forbidden things"}
		}
		return hooks.Decision{Permission: hooks.Allow}
	})
	h := looptest.NewHarness(t, looptest.Options{Hooks: seams},
		looptest.StreamBlocks("tool_use", bashEcho("toolu_1", "forbidden"), bashEcho("toolu_2", "fine")),
		looptest.ReplyText("ok"))
	h.Editor.OnPermission = func(context.Context, *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		t.Error("asked the editor although a hook decided")
		return nil, errors.New("unexpected")
	}
	sid := h.NewSession()
	h.Prompt(sid, "x")
	req := h.Model.Requests()[1]
	text, isErr := looptest.ToolResult(t, req, "toolu_1")
	if !isErr || !strings.Contains(text, "no forbidden things") {
		t.Fatalf("denied result = %q (error %v)", text, isErr)
	}
	text, isErr = looptest.ToolResult(t, req, "toolu_2")
	if isErr || !strings.Contains(text, "fine") {
		t.Fatalf("allowed result = %q (error %v)", text, isErr)
	}
}

func TestPreToolUseAskForcesQuestionInBypassMode(t *testing.T) {
	seams := hookFunc(func(ctx context.Context, in *hooks.Input) hooks.Decision {
		if in.Event == hooks.PreToolUse {
			return hooks.Decision{Permission: hooks.Ask, Reason: "this touches production"}
		}
		return hooks.Decision{}
	})
	h := looptest.NewHarness(t, looptest.Options{Hooks: seams, Mode: loop.ModeBypass}, looptest.StreamBlocks("tool_use", bashEcho("toolu_1", "a")), looptest.ReplyText("ok"))
	asked := 0
	h.Editor.OnPermission = func(ctx context.Context, p *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		asked++
		if len(p.ToolCall.Content) == 0 || !strings.Contains(p.ToolCall.Content[0].Content.Text, "this touches production") {
			t.Errorf("the hook's reason is not shown first in the permission request: %+v", p.ToolCall.Content)
		}
		return looptest.Allow(acp.PermAllowOnce)(ctx, p)
	}
	h.Prompt(h.NewSession(), "x")
	if asked != 1 {
		t.Fatalf("asked %d times, want 1: a hook's ask is honoured, not downgraded", asked)
	}
}

func TestPlanModeRefusesWritingTools(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{Mode: loop.ModePlan}, looptest.StreamBlocks("tool_use", bashCall("toolu_1", "touch a")), looptest.ReplyText("ok"))
	h.Prompt(h.NewSession(), "x")
	text, isErr := looptest.ToolResult(t, h.Model.Requests()[1], "toolu_1")
	if !isErr || !strings.Contains(text, "Plan mode") {
		t.Fatalf("result = %q", text)
	}
}

// Claude Code runs its read-only Bash commands in every mode, plan mode
// included. In plan mode a command permrules.ReadOnlyCommand accepts is
// therefore not refused: a hook's allow (as the built-in permission rules
// give a read-only command) runs it, a hook's ask asks, a hook's deny
// denies, and no word at all asks the user. A command that writes is
// refused however much a hook allows it.
func TestPlanModeRunsReadOnlyCommandsOnly(t *testing.T) {
	decide := hookFunc(func(ctx context.Context, in *hooks.Input) hooks.Decision {
		if in.Event != hooks.PreToolUse {
			return hooks.Decision{}
		}
		var input struct{ Command string }
		json.Unmarshal(in.ToolInput, &input)
		switch command := input.Command; {
		case strings.HasPrefix(command, "cat"):
			return hooks.Decision{Permission: hooks.Ask, Reason: "ask rule"}
		case strings.HasPrefix(command, "head"):
			return hooks.Decision{Permission: hooks.Deny, Reason: "deny rule"}
		case strings.HasPrefix(command, "wc"):
			return hooks.Decision{}
		}
		return hooks.Decision{Permission: hooks.Allow}
	})
	h := looptest.NewHarness(t, looptest.Options{Hooks: decide, Mode: loop.ModePlan},
		looptest.StreamBlocks("tool_use",
			bashCall("toolu_ls", "ls"),
			bashCall("toolu_touch", "touch made.txt"),
			bashCall("toolu_cat", "cat a.txt"),
			bashCall("toolu_head", "head a.txt"),
			bashCall("toolu_wc", "wc -l a.txt"),
			bashCall("toolu_out", "ls > listing.txt")),
		looptest.ReplyText("ok"))
	if err := os.WriteFile(filepath.Join(h.Cwd, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	answered := &answerLog{answers: []string{acp.PermAllowOnce, acp.PermAllowOnce}}
	h.Editor.OnPermission = answered.answer
	h.Prompt(h.NewSession(), "look around")

	titles := answered.titles()
	slices.Sort(titles)
	if got := strings.Join(titles, " | "); got != "cat a.txt | wc -l a.txt" {
		t.Errorf("asked about %q, want the ask rule's cat and the unruled wc", got)
	}
	req := h.Model.Requests()[1]
	for id, want := range map[string]string{"toolu_ls": "a.txt", "toolu_cat": "alpha", "toolu_wc": "1 a.txt"} {
		if text, isErr := looptest.ToolResult(t, req, id); isErr || !strings.Contains(text, want) {
			t.Errorf("%s: %q (error %v), want it run", id, text, isErr)
		}
	}
	for id, want := range map[string]string{"toolu_touch": "Plan mode", "toolu_head": "deny rule", "toolu_out": "Plan mode"} {
		if text, isErr := looptest.ToolResult(t, req, id); !isErr || !strings.Contains(text, want) {
			t.Errorf("%s: %q (error %v), want it refused with %q", id, text, isErr, want)
		}
	}
	for _, name := range []string{"made.txt", "listing.txt"} {
		if _, err := os.Stat(filepath.Join(h.Cwd, name)); err == nil {
			t.Errorf("plan mode let a command write %s", name)
		}
	}
}

func TestStopHookBlockContinuesOnceWithSteering(t *testing.T) {
	var stops []bool
	seams := hookFunc(func(ctx context.Context, in *hooks.Input) hooks.Decision {
		if in.Event != hooks.Stop {
			return hooks.Decision{}
		}
		stops = append(stops, in.StopHookActive)
		if !in.StopHookActive {
			return hooks.Decision{Block: true, Reason: "run the tests first"}
		}
		return hooks.Decision{}
	})
	h := looptest.NewHarness(t, looptest.Options{Hooks: seams}, looptest.ReplyText("All done."), looptest.ReplyText("Tests pass."))
	sid := h.NewSession()
	if stop := h.Prompt(sid, "fix it"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	if fmt.Sprint(stops) != "[false true]" {
		t.Fatalf("stop_hook_active sequence = %v", stops)
	}
	second, _ := json.Marshal(h.Model.Requests()[1]["messages"])
	if !strings.Contains(string(second), "run the tests first") {
		t.Fatalf("the block reason did not reach the model: %s", second)
	}
}

func TestStopHookThatAlwaysBlocksIsCapped(t *testing.T) {
	seams := hookFunc(func(ctx context.Context, in *hooks.Input) hooks.Decision {
		if in.Event == hooks.Stop {
			return hooks.Decision{Block: true, Reason: "never done"}
		}
		return hooks.Decision{}
	})
	script := []http.HandlerFunc{}
	for range 4 {
		script = append(script, looptest.ReplyText("again"))
	}
	h := looptest.NewHarness(t, looptest.Options{Hooks: seams, Config: func(c *loop.Config) { c.MaxStopBlocks = 3 }}, script...)
	sid := h.NewSession()
	if stop := h.Prompt(sid, "x"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	if n := len(h.Model.Requests()); n != 4 {
		t.Fatalf("%d model requests, want 4 (1 + 3 honoured blocks)", n)
	}
	if !strings.Contains(looptest.AgentText(h.Editor.Updates(sid)), "4 consecutive times") {
		t.Fatalf("the cap was not explained to the user: %q", looptest.AgentText(h.Editor.Updates(sid)))
	}
}

func TestUserPromptSubmitBlockRejectsTurn(t *testing.T) {
	seams := hookFunc(func(ctx context.Context, in *hooks.Input) hooks.Decision {
		if in.Event == hooks.UserPromptSubmit && strings.Contains(in.Prompt, "secret") {
			return hooks.Decision{Block: true, Reason: "prompts may not contain secrets"}
		}
		return hooks.Decision{}
	})
	h := looptest.NewHarness(t, looptest.Options{Hooks: seams})
	sid := h.NewSession()
	if stop := h.Prompt(sid, "my secret is 42"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	if got := looptest.AgentText(h.Editor.Updates(sid)); !strings.Contains(got, "prompts may not contain secrets") {
		t.Fatalf("agent text = %q", got)
	}
	if n := len(h.Model.Requests()); n != 0 {
		t.Fatalf("%d model requests for a blocked prompt", n)
	}
}

func TestSessionStartContextLandsInFirstRequest(t *testing.T) {
	seams := hookFunc(func(ctx context.Context, in *hooks.Input) hooks.Decision {
		if in.Event == hooks.SessionStart {
			return hooks.Decision{AdditionalContext: []string{"the build uses make"}}
		}
		return hooks.Decision{}
	})
	h := looptest.NewHarness(t, looptest.Options{Hooks: seams}, looptest.ReplyText("ok"), looptest.ReplyText("ok"))
	sid := h.NewSession()
	h.Prompt(sid, "one")
	h.Prompt(sid, "two")
	reqs := h.Model.Requests()
	first, _ := json.Marshal(reqs[0]["messages"])
	if !strings.Contains(string(first), "the build uses make") {
		t.Fatalf("SessionStart context missing from the first request: %s", first)
	}
	second, _ := json.Marshal(reqs[1]["messages"])
	if strings.Count(string(second), "the build uses make") != 1 {
		t.Fatalf("SessionStart context should appear exactly once: %s", second)
	}
}

func TestTodoWriteSendsPlan(t *testing.T) {
	todos := []map[string]any{
		{"content": "Read the code", "status": "completed", "activeForm": "Reading"},
		{"content": "Fix the bug", "status": "in_progress", "activeForm": "Fixing"},
	}
	h := looptest.NewHarness(t, looptest.Options{}, looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_1", "TodoWrite", map[string]any{"todos": todos})), looptest.ReplyText("ok"))
	sid := h.NewSession()
	h.Prompt(sid, "plan")
	var plan *acp.PlanUpdate
	for _, u := range h.Editor.Updates(sid) {
		if p, ok := u.(*acp.PlanUpdate); ok {
			plan = p
		}
	}
	if plan == nil || len(plan.Entries) != 2 || plan.Entries[1].Content != "Fix the bug" || plan.Entries[1].Status != "in_progress" {
		t.Fatalf("plan = %+v", plan)
	}
}

func TestSubagentRunsChildLoop(t *testing.T) {
	var subStarts []string
	seams := hookFunc(func(ctx context.Context, in *hooks.Input) hooks.Decision {
		if in.Event == hooks.SubagentStart {
			subStarts = append(subStarts, in.AgentType)
			return hooks.Decision{AdditionalContext: []string{"child context"}}
		}
		return hooks.Decision{}
	})
	h := looptest.NewHarness(t, looptest.Options{Hooks: seams},
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_task", "Task", map[string]any{"description": "find main", "prompt": "Find the main function", "subagent_type": "explorer"})),
		looptest.ReplyText("main is in cmd/main.go"),
		looptest.ReplyText("The subagent found it."))
	sid := h.NewSession()
	h.Prompt(sid, "where is main?")
	reqs := h.Model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 (parent, child, parent)", len(reqs))
	}
	child, _ := json.Marshal(reqs[1]["messages"])
	if !strings.Contains(string(child), "Find the main function") || !strings.Contains(string(child), "child context") || strings.Contains(string(child), "where is main?") {
		t.Fatalf("child request should hold only its own task and SubagentStart context: %s", child)
	}
	for _, tl := range reqs[1]["tools"].([]any) {
		if tl.(map[string]any)["name"] == "Task" {
			t.Error("a depth-1 subagent was offered Task")
		}
	}
	text, isErr := looptest.ToolResult(t, reqs[2], "toolu_task")
	if isErr || text != "main is in cmd/main.go" {
		t.Fatalf("Task result = %q (error %v)", text, isErr)
	}
	if fmt.Sprint(subStarts) != "[explorer]" {
		t.Fatalf("SubagentStart = %v", subStarts)
	}
	progress := false
	for _, u := range toolUpdates(h.Editor.Updates(sid), "toolu_task") {
		if len(u.Content) > 0 && u.Content[0].Content != nil && strings.Contains(u.Content[0].Content.Text, "main is in") {
			progress = true
		}
	}
	if !progress {
		t.Fatal("the child's text was not shown on the parent's tool call")
	}
	if _, err := os.Stat(filepath.Join(h.StateDir, "sessions", sid, "subagents", "agent-toolu_task.jsonl")); err != nil {
		t.Fatalf("subagent log: %v", err)
	}
}

func TestRetryAfter529(t *testing.T) {
	overloaded := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("retry-after-ms", "10")
		w.WriteHeader(529)
		w.Write([]byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
	}
	h := looptest.NewHarness(t, looptest.Options{}, overloaded, looptest.ReplyText("recovered"))
	sid := h.NewSession()
	if stop := h.Prompt(sid, "x"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	// The wait is a status line, not the model's thought.
	if got := looptest.AgentText(h.Editor.Updates(sid)); got != "[cordis: overloaded, retrying in 10ms (attempt 1/2)]\nrecovered" {
		t.Fatalf("agent text = %q", got)
	}
	for _, u := range h.Editor.Updates(sid) {
		if _, ok := u.(*acp.AgentThoughtChunk); ok {
			t.Errorf("a retry was shown as thought: %+v", u)
		}
	}
	if n := len(h.Model.Requests()); n != 2 {
		t.Fatalf("%d requests, want 2", n)
	}
}

func TestMidStreamErrorEndsTurnWithClearMessage(t *testing.T) {
	broken := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		looptest.SSEEvent(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "m", "type": "message", "role": "assistant", "model": "claude-test", "content": []any{}, "usage": map[string]any{"input_tokens": 1, "output_tokens": 1}}})
		looptest.SSEEvent(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		looptest.SSEEvent(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": "Partial answer"}})
		looptest.SSEEvent(w, "error", map[string]any{"type": "error", "error": map[string]any{"type": "overloaded_error", "message": "Overloaded"}})
	}
	h := looptest.NewHarness(t, looptest.Options{}, broken, looptest.ReplyText("second turn works"))
	sid := h.NewSession()
	_, err := h.Editor.Prompt(h.Ctx, sid, "x")
	if err == nil || !strings.Contains(err.Error(), "overloaded") {
		t.Fatalf("prompt answered %v, want a JSON-RPC error saying the API is overloaded", err)
	}
	if got := looptest.AgentText(h.Editor.Updates(sid)); got != "Partial answer" {
		t.Fatalf("agent text = %q", got)
	}
	if n := len(h.Model.Requests()); n != 1 {
		t.Fatalf("mid-stream error was retried (%d requests)", n)
	}
	// The session survives: the partial text is in the history.
	h.Prompt(sid, "again")
	msgs, _ := json.Marshal(h.Model.Requests()[1]["messages"])
	if !strings.Contains(string(msgs), "Partial answer") {
		t.Fatalf("partial answer lost from history: %s", msgs)
	}
}

func TestMissingKeyIsAuthRequired(t *testing.T) {
	noKey := anthropic.WithGetenv(func(string) string { return "" })
	hh := looptest.NewHarness(t, looptest.Options{AnthropicOptions: []anthropic.Option{noKey}})
	init := hh.Init
	if len(init.AuthMethods) != 1 || !strings.Contains(init.AuthMethods[0].Description, "ANTHROPIC_API_KEY") {
		t.Fatalf("authMethods = %+v", init.AuthMethods)
	}
	var resp acp.NewSessionResponse
	err := hh.Editor.Call(hh.Ctx, acp.MethodSessionNew, acp.NewSessionRequest{Cwd: t.TempDir(), MCPServers: []acp.MCPServer{}}, &resp)
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != acp.CodeAuthRequired || !strings.Contains(rpcErr.Message, "ANTHROPIC_API_KEY") {
		t.Fatalf("session/new without a key: %v", err)
	}
}

func TestCancelDuringBashKillsProcessGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := fmt.Sprintf("sleep 60 & echo $! > %s; wait", pidFile)
	h := looptest.NewHarness(t, looptest.Options{Mode: loop.ModeBypass}, looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_1", "Bash", map[string]any{"command": cmd})))
	sid := h.NewSession()
	go func() {
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			if data, err := os.ReadFile(pidFile); err == nil && len(strings.TrimSpace(string(data))) > 0 {
				h.Editor.Notify(h.Ctx, acp.MethodSessionCancel, acp.CancelNotification{SessionID: sid})
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	if stop := h.Prompt(sid, "sleep"); stop != acp.StopCancelled {
		t.Fatalf("stop = %q, want cancelled", stop)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("child process %d still alive after cancel", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// After a refusal, the refused prompt and what followed are left out of
// the next request (ACP's StopReason refusal), also after a reload.
func TestRefusalDropsThePromptFromHistory(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{}, looptest.ReplyText("first answer"), looptest.StreamBlocks("refusal", looptest.Text("I can't help with that.")), looptest.ReplyText("ok"))
	sid := h.NewSession()
	h.Prompt(sid, "first question")
	if stop := h.Prompt(sid, "something refused"); stop != acp.StopRefusal {
		t.Fatalf("stop = %q, want refusal", stop)
	}
	h.Prompt(sid, "next question")
	msgs, _ := json.Marshal(h.Model.Requests()[2]["messages"])
	if strings.Contains(string(msgs), "something refused") || strings.Contains(string(msgs), "I can't help") || !strings.Contains(string(msgs), "first question") {
		t.Fatalf("history after a refusal: %s", msgs)
	}
}
