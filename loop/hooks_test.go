package loop_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/hooks/builtin"
	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/tools"
	"github.com/cordis-agent/cordis/sessionlog"
	"github.com/google/go-cmp/cmp"
)

// The tests in this file run full turns (acptest editor, httptest model
// server) through a hooks.Pipeline: the built-in hooks as cordis runs
// them, and the seams the loop calls.

func neverAsk(t *testing.T) func(context.Context, *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	return func(context.Context, *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		t.Error("the editor was asked for permission")
		return nil, errors.New("unexpected permission request")
	}
}

func lastUpdate(t *testing.T, ups []acp.SessionUpdate, id string) *acp.ToolCallUpdate {
	t.Helper()
	all := toolUpdates(ups, id)
	if len(all) == 0 {
		t.Fatalf("no tool_call_update for %s", id)
	}
	return all[len(all)-1]
}

func updateText(u *acp.ToolCallUpdate) string {
	var b strings.Builder
	for _, c := range u.Content {
		if c.Content != nil {
			b.WriteString(c.Content.Text)
		}
	}
	return b.String()
}

func TestBuiltinPermissionRuleDeniesRmRf(t *testing.T) {
	cfg := builtin.DefaultConfig()
	cfg.PermissionRules.Deny = []string{"Bash(rm -rf:*)"}
	pipe, _ := withBuiltins(t, cfg)
	h := newHarness(t, harnessOpts{hooks: pipe, mode: loop.ModeBypass},
		streamBlocks("tool_use", toolUse("toolu_1", "Bash", map[string]any{"command": "rm -rf build"})),
		replyText("I will not delete it."))
	os.Mkdir(filepath.Join(h.cwd, "build"), 0o755)
	h.editor.OnPermission = neverAsk(t)
	sid := h.newSession()
	h.prompt(sid, "clean up")

	if _, err := os.Stat(filepath.Join(h.cwd, "build")); err != nil {
		t.Fatalf("the denied command ran: %v", err)
	}
	text, isErr := toolResultIn(t, h.model.Requests()[1], "toolu_1")
	if !isErr || !strings.Contains(text, "deny Bash(rm -rf:*)") {
		t.Fatalf("tool_result = %q (error %v)", text, isErr)
	}
	// The editor sees the call fail with the rule.
	last := lastUpdate(t, h.editor.Updates(sid), "toolu_1")
	if last.Status != acp.ToolStatusFailed || !strings.Contains(updateText(last), "Denied by a PreToolUse hook") || !strings.Contains(updateText(last), "Bash(rm -rf:*)") {
		t.Fatalf("final update = %+v", last)
	}
	// The session log holds the hook's decision and the verdict.
	events := logEvents(t, h.state, sid, "")
	decisions := hookResults(events, builtin.PermissionRules)
	if len(decisions) != 1 || decisions[0]["permission"] != "deny" {
		t.Fatalf("permission-rules decisions = %v", decisions)
	}
	perms := logData(events, sessionlog.TypePermission)
	if len(perms) != 1 || perms[0]["allowed"] != false || perms[0]["source"] != "hook" {
		t.Fatalf("permission events = %v", perms)
	}
}

func TestBuiltinInputSanitizeRedactsKeyBeforeTheToolRuns(t *testing.T) {
	pipe, _ := withBuiltins(t, nil)
	key := "sk-ant-api03-" + strings.Repeat("Xy7", 12)
	h := newHarness(t, harnessOpts{hooks: pipe, mode: loop.ModeBypass},
		streamBlocks("tool_use", toolUse("toolu_1", "Bash", map[string]any{"command": "echo key=" + key})),
		replyText("done"))
	sid := h.newSession()
	h.prompt(sid, "print my key")

	text, _ := toolResultIn(t, h.model.Requests()[1], "toolu_1")
	if strings.Contains(text, key) || !strings.Contains(text, "[REDACTED:") {
		t.Fatalf("the command ran with the key: %q", text)
	}
	ups := h.editor.Updates(sid)
	var shown json.RawMessage
	for _, u := range toolUpdates(ups, "toolu_1") {
		if u.RawInput != nil {
			shown = u.RawInput
		}
	}
	if !strings.Contains(string(shown), "[REDACTED:") || strings.Contains(string(shown), key) {
		t.Fatalf("the editor was not shown the redacted input: %s", shown)
	}
	if out := updateText(lastUpdate(t, ups, "toolu_1")); strings.Contains(out, key) {
		t.Fatalf("the output shown holds the key: %q", out)
	}
	events := logEvents(t, h.state, sid, "")
	decisions := hookResults(events, builtin.InputSanitize)
	if len(decisions) != 1 || !strings.Contains(fmt.Sprint(decisions[0]["updatedInput"]), "[REDACTED:") {
		t.Fatalf("input-sanitize decisions = %v", decisions)
	}
	for _, r := range logData(events, sessionlog.TypeToolResult) {
		if strings.Contains(fmt.Sprint(r), key) {
			t.Fatalf("the key reached tool/result: %v", r)
		}
	}
}

func TestBuiltinBudgetStopsTheTurnAndTheNextOne(t *testing.T) {
	cfg := builtin.DefaultConfig()
	cfg.BudgetCheck.MaxTokens = 100 // the first response alone uses 120
	pipe, _ := withBuiltins(t, cfg)
	h := newHarness(t, harnessOpts{hooks: pipe, mode: loop.ModeBypass},
		streamBlocks("tool_use", textBlock("Let me look."), bashEcho("toolu_1", "a"), bashEcho("toolu_2", "b")))
	sid := h.newSession()
	if stop := h.prompt(sid, "work"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	if n := len(h.model.Requests()); n != 1 {
		t.Fatalf("%d model requests; the budget should have ended the turn after the first", n)
	}
	got := agentText(h.editor.Updates(sid))
	if !strings.Contains(got, "120 tokens used of the 100 allowed") || !strings.Contains(got, "raise the limit") {
		t.Fatalf("agent text = %q", got)
	}
	for _, id := range []string{"toolu_1"} {
		if last := lastUpdate(t, h.editor.Updates(sid), id); last.Status != acp.ToolStatusFailed {
			t.Fatalf("%s ran over budget: %+v", id, last)
		}
	}
	// The next prompt ends before any model request.
	h.prompt(sid, "more")
	if n := len(h.model.Requests()); n != 1 {
		t.Fatalf("%d model requests after the budget was used", n)
	}
	events := logEvents(t, h.state, sid, "")
	stops := 0
	for _, n := range logData(events, sessionlog.TypeNotice) {
		if n["kind"] == "turnStopped" && strings.Contains(n["reason"].(string), "budgetCheck.maxTokens") {
			stops++
		}
	}
	if stops != 2 {
		t.Fatalf("%d turnStopped notices, want 2", stops)
	}
	// The history stays valid: both calls have a result.
	var last llm.Message
	for _, d := range logData(events, sessionlog.TypeMessage) {
		b, _ := json.Marshal(d)
		json.Unmarshal(b, &last)
		if last.Role == llm.RoleUser && len(last.Content) == 2 && last.Content[1].ToolUseID == "toolu_2" {
			return
		}
	}
	t.Fatal("toolu_2 got no tool_result in the history")
}

func TestBudgetSurvivesLoad(t *testing.T) {
	cfg := builtin.DefaultConfig()
	cfg.BudgetCheck.MaxTokens = 100
	pipe, _ := withBuiltins(t, cfg)
	h := newHarness(t, harnessOpts{hooks: pipe}, replyText("that cost 120 tokens"))
	sid := h.newSession()
	h.prompt(sid, "one")

	pipe2, _ := withBuiltins(t, cfg)
	h2 := newHarness(t, harnessOpts{hooks: pipe2, cfg: func(c *loop.Config) { c.StateDir = h.state }})
	if err := h2.editor.Call(h2.ctx, acp.MethodSessionLoad, acp.LoadSessionRequest{SessionID: sid, Cwd: h.cwd, MCPServers: []acp.MCPServer{}}, &acp.LoadSessionResponse{}); err != nil {
		t.Fatal(err)
	}
	h2.prompt(sid, "two")
	if n := len(h2.model.Requests()); n != 0 {
		t.Fatalf("%d requests: the restored session forgot its usage", n)
	}
	if got := agentText(h2.editor.Updates(sid)); !strings.Contains(got, "120 tokens used") {
		t.Fatalf("agent text = %q", got)
	}
}

func TestUsageUpdateReportsCumulativeCost(t *testing.T) {
	h := newHarness(t, harnessOpts{},
		streamBlocksAs("claude-sonnet-4-5-20250929", 1000, "end_turn", textBlock("one")),
		streamBlocksAs("claude-sonnet-4-5-20250929", 1000, "end_turn", textBlock("two")))
	sid := h.newSession()
	h.prompt(sid, "a")
	h.prompt(sid, "b")
	var costs []acp.Cost
	for _, u := range h.editor.Updates(sid) {
		if u, ok := u.(*acp.UsageUpdate); ok && u.Cost != nil {
			costs = append(costs, *u.Cost)
		}
	}
	// 1000 input at $3/MTok + 20 output at $15/MTok = $0.0033 a response.
	want := []acp.Cost{{Amount: 0.0033, Currency: "USD"}, {Amount: 0.0066, Currency: "USD"}}
	if diff := cmp.Diff(want, costs); diff != "" {
		t.Fatalf("costs (-want +got):\n%s", diff)
	}
}

func TestBuiltinAuditLogWritesALinePerExecution(t *testing.T) {
	cfg := builtin.DefaultConfig()
	cfg.AuditLog.File = filepath.Join(t.TempDir(), "audit.jsonl")
	pipe, _ := withBuiltins(t, cfg)
	h := newHarness(t, harnessOpts{hooks: pipe, mode: loop.ModeBypass},
		streamBlocks("tool_use", bashEcho("toolu_1", "audited"), toolUse("toolu_2", "Read", map[string]any{"file_path": "/nonexistent/x"})),
		replyText("ok"))
	sid := h.newSession()
	h.prompt(sid, "x")
	data, err := os.ReadFile(cfg.AuditLog.File)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 {
		t.Fatalf("audit log:\n%s", data)
	}
	var first, second map[string]any
	json.Unmarshal([]byte(lines[0]), &first)
	json.Unmarshal([]byte(lines[1]), &second)
	if first["session"] != sid || first["tool"] != "Bash" || first["outcome"] != "ok" || first["toolUseId"] != "toolu_1" ||
		!strings.Contains(first["input"].(string), "echo audited") || first["durationMs"] == nil {
		t.Errorf("first line = %v", first)
	}
	if second["tool"] != "Read" || second["outcome"] != "error" || second["error"] == "" {
		t.Errorf("second line = %v", second)
	}
	// The session log shows the hook ran for both calls.
	starts := 0
	for _, s := range logData(logEvents(t, h.state, sid, ""), sessionlog.TypeHookStart) {
		if s["hook"] == builtin.AuditLog {
			starts++
		}
	}
	if starts != 2 {
		t.Fatalf("audit-log ran %d times", starts)
	}
	// The editor still sees the real outputs.
	if !strings.Contains(updateText(lastUpdate(t, h.editor.Updates(sid), "toolu_1")), "audited") {
		t.Fatal("the audited call's output is missing")
	}
}

// bigTool returns 1 MB of numbered lines.
type bigTool struct{}

func (bigTool) Name() string            { return "Big" }
func (bigTool) Description() string     { return "Prints a lot." }
func (bigTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object","properties":{}}`) }
func (bigTool) Kind() tools.Kind        { return tools.KindRead }
func (bigTool) ReadOnly() bool          { return true }
func (bigTool) Describe(*tools.Env, json.RawMessage) tools.Description {
	return tools.Description{Title: "Print a lot"}
}
func (bigTool) Run(context.Context, *tools.Env, json.RawMessage) tools.Result {
	var b strings.Builder
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "line %07d: some output\n", i)
	}
	return tools.Result{Text: b.String()}
}

func TestBuiltinResultCompressCutsA1MBOutput(t *testing.T) {
	cfg := builtin.DefaultConfig()
	cfg.ResultCompress.MaxTokens = 2000
	pipe, _ := withBuiltins(t, cfg)
	h := newHarness(t, harnessOpts{hooks: pipe, cfg: func(c *loop.Config) { c.Tools = append(tools.Builtin(), bigTool{}) }},
		streamBlocks("tool_use", toolUse("toolu_big", "Big", map[string]any{})),
		replyText("That was long."))
	sid := h.newSession()
	h.prompt(sid, "print a lot")

	text, isErr := toolResultIn(t, h.model.Requests()[1], "toolu_big")
	if isErr || len(text) > 9000 || !strings.Contains(text, "result-compress cut") || !strings.HasPrefix(text, "line 0000000") || !strings.Contains(text, "-byte output") {
		t.Fatalf("the model got %d bytes (error %v): %.300q", len(text), isErr, text)
	}
	if shown := updateText(lastUpdate(t, h.editor.Updates(sid), "toolu_big")); shown != text {
		t.Fatalf("the editor was shown %d bytes, the model %d", len(shown), len(text))
	}
	events := logEvents(t, h.state, sid, "")
	results := logData(events, sessionlog.TypeToolResult)
	if len(results) != 1 || results[0]["output"] != text || results[0]["resultFrom"] != "PostToolUse" {
		t.Fatalf("tool/result = %.300v", results)
	}
	if d := hookResults(events, builtin.ResultCompress); len(d) != 1 || d[0]["replaceResult"] != text {
		t.Fatalf("result-compress decisions = %.300v", d)
	}
}

func TestBuiltinContextMonitorWarnsThenRequestsCompaction(t *testing.T) {
	pipe, _ := withBuiltins(t, nil)
	h := newHarness(t, harnessOpts{hooks: pipe},
		streamBlocksAs("claude-test", 124000, "end_turn", textBlock("Answer one.")),
		streamBlocksAs("claude-test", 150000, "end_turn", textBlock("Answer two.")),
		replyText("SUMMARY of one and two"))
	sid := h.newSession()
	h.prompt(sid, "one")
	got := agentText(h.editor.Updates(sid))
	if !strings.HasPrefix(got, "Answer one.") || !strings.Contains(got, "fills 62% of the model's context window (124,020 of 200,000 tokens)") {
		t.Fatalf("after the first answer: %q", got)
	}
	h.prompt(sid, "two")
	got = agentText(h.editor.Updates(sid))
	if !strings.Contains(got, "fills 75%") || !strings.Contains(got, "compacts the conversation when this turn ends") || !strings.Contains(got, "Compacted the conversation") {
		t.Fatalf("after the second answer: %q", got)
	}
	// The compaction ran at the end of the turn, with the history as input.
	if reqs := h.model.Requests(); len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3 (two answers and the automatic compaction)", len(reqs))
	}
	events := logEvents(t, h.state, sid, "")
	var texts []string
	for _, d := range logData(events, sessionlog.TypeAgentText) {
		texts = append(texts, d["text"].(string))
	}
	if len(texts) != 3 || !strings.Contains(texts[0], "62%") || !strings.Contains(texts[2], "Compacted") {
		t.Fatalf("logged agent text = %q", texts)
	}
	var notices []map[string]any
	for _, n := range logData(events, sessionlog.TypeNotice) {
		if n["kind"] == "compactionRequested" {
			notices = append(notices, n)
		}
	}
	if len(notices) != 1 || notices[0]["contextTokens"] != 150020.0 {
		t.Fatalf("compaction notices = %v", notices)
	}
}

func TestBuiltinTodoEnforcerRefusesTheStopOnce(t *testing.T) {
	cfg := builtin.DefaultConfig()
	cfg.TodoEnforcer.RemindersPerTurn = 1
	pipe, _ := withBuiltins(t, cfg)
	todos := []map[string]any{
		{"content": "Fix the bug", "status": "completed"},
		{"content": "Run the tests", "status": "pending"},
	}
	h := newHarness(t, harnessOpts{hooks: pipe},
		streamBlocks("tool_use", toolUse("toolu_1", "TodoWrite", map[string]any{"todos": todos})),
		replyText("All done."),
		replyText("Really done now."))
	sid := h.newSession()
	h.prompt(sid, "fix it")
	reqs := h.model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 (one refused stop)", len(reqs))
	}
	third, _ := json.Marshal(reqs[2]["messages"])
	if !strings.Contains(string(third), `- [pending] Run the tests`) || strings.Contains(string(third), "[completed]") {
		t.Fatalf("the reminder did not list the open item: %s", third)
	}
	steering := logData(logEvents(t, h.state, sid, ""), sessionlog.TypeSteering)
	if len(steering) != 1 || !strings.Contains(steering[0]["reason"].(string), "Run the tests") {
		t.Fatalf("steering = %v", steering)
	}
}

func TestBuiltinMetricsShowInStatus(t *testing.T) {
	pipe, set := withBuiltins(t, nil)
	h := newHarness(t, harnessOpts{hooks: pipe, mode: loop.ModeBypass, cfg: func(c *loop.Config) { c.Status = set.Status }},
		streamBlocks("tool_use", bashEcho("toolu_1", "a"), bashEcho("toolu_2", "b"), toolUse("toolu_3", "Read", map[string]any{"file_path": "/nonexistent"})),
		replyText("ok"))
	sid := h.newSession()
	h.prompt(sid, "x")
	snap := set.Metrics.Snapshot(sid)
	if len(snap) != 2 || snap[0].Tool != "Bash" || snap[0].Calls != 2 || snap[1].Tool != "Read" || snap[1].Failures != 1 {
		t.Fatalf("metrics = %+v", snap)
	}
	h.prompt(sid, "/status")
	if got := agentText(h.editor.Updates(sid)); !strings.Contains(got, "- Bash: 2, 0 failed") || !strings.Contains(got, "- Read: 1, 1 failed") {
		t.Fatalf("/status = %q", got)
	}
}

// spy records the seams it sees.
type spy struct {
	mu    sync.Mutex
	calls []string
}

func (s *spy) hook(name string, fn func(in *hooks.Input) hooks.Decision) hooks.Hook {
	return hooks.Func(name, func(ctx context.Context, in *hooks.Input) (hooks.Decision, error) {
		s.mu.Lock()
		label := string(in.Event)
		if hooks.InProcessOnly(in.Event) {
			label += fmt.Sprint("#", in.Step)
		}
		if in.ToolUseID != "" {
			label += " " + in.ToolUseID
		}
		if in.AgentID != "" {
			label += " @" + in.AgentID
		}
		s.calls = append(s.calls, label)
		s.mu.Unlock()
		if fn != nil {
			return fn(in), nil
		}
		return hooks.Decision{}, nil
	})
}

var allEvents = []hooks.Event{hooks.SessionStart, hooks.UserPromptSubmit, hooks.PreToolUse, hooks.PermissionRequest, hooks.PostToolUse,
	hooks.PostToolUseFailure, hooks.Stop, hooks.SubagentStart, hooks.SubagentStop, hooks.PreCompact, hooks.SessionEnd, hooks.Notification,
	hooks.LoopStart, hooks.PrepareRequest, hooks.LLMRequest, hooks.LLMResponse, hooks.ProcessToolCalls, hooks.LoopEnd}

func TestSeamsRunInOrderThroughATurn(t *testing.T) {
	s := &spy{}
	pipe := hooks.NewPipeline()
	for _, ev := range allEvents {
		pipe.Register(ev, s.hook("spy", nil), hooks.RegisterOptions{})
	}
	h := newHarness(t, harnessOpts{hooks: pipe},
		streamBlocks("tool_use", bashEcho("toolu_1", "a")),
		replyText("done"))
	h.editor.OnPermission = allow(acp.PermAllowOnce)
	sid := h.newSession()
	h.prompt(sid, "x")
	want := []string{
		"SessionStart", "UserPromptSubmit",
		"LoopStart#0", "PrepareRequest#0", "LLMRequest#0", "LLMResponse#0", "ProcessToolCalls#0",
		"PreToolUse toolu_1", "PermissionRequest toolu_1", "PostToolUse toolu_1", "LoopEnd#0",
		"LoopStart#1", "PrepareRequest#1", "LLMRequest#1", "LLMResponse#1", "LoopEnd#1",
		"Stop",
	}
	if diff := cmp.Diff(want, s.calls); diff != "" {
		t.Fatalf("seams (-want +got):\n%s", diff)
	}
	// Every run is in the session log, start then result.
	events := logEvents(t, h.state, sid, "")
	if n, m := len(logData(events, sessionlog.TypeHookStart)), len(logData(events, sessionlog.TypeHookResult)); n != len(want) || m != len(want) {
		t.Fatalf("hook/start %d, hook/result %d; want %d each", n, m, len(want))
	}
}

func TestPrepareRequestChangesOneRequest(t *testing.T) {
	s := &spy{}
	pipe := hooks.NewPipeline()
	pipe.Register(hooks.PrepareRequest, s.hook("narrow", func(in *hooks.Input) hooks.Decision {
		if in.TurnID != "turn-1" {
			return hooks.Decision{}
		}
		var read []llm.ToolSpec
		for _, t := range in.Request.Tools {
			if t.Name == "Read" {
				read = append(read, t)
			}
		}
		return hooks.Decision{System: []string{"Answer in one word."}, Tools: read}
	}), hooks.RegisterOptions{})
	h := newHarness(t, harnessOpts{hooks: pipe}, replyText("Yes."), replyText("A longer answer."))
	sid := h.newSession()
	h.prompt(sid, "one")
	h.prompt(sid, "two")
	reqs := h.model.Requests()
	sys, _ := json.Marshal(reqs[0]["system"])
	if !strings.Contains(string(sys), "Answer in one word.") || strings.Contains(string(sys), "You are cordis") {
		t.Fatalf("first system = %s", sys)
	}
	if tl := reqs[0]["tools"].([]any); len(tl) != 1 || tl[0].(map[string]any)["name"] != "Read" {
		t.Fatalf("first tools = %v", tl)
	}
	sys2, _ := json.Marshal(reqs[1]["system"])
	if !strings.Contains(string(sys2), "You are cordis") || len(reqs[1]["tools"].([]any)) < 5 {
		t.Fatalf("the second turn was changed too: %s", sys2)
	}
	if got := logData(logEvents(t, h.state, sid, ""), sessionlog.TypeModelRequest); fmt.Sprint(got[0]["tools"]) != "[Read]" {
		t.Fatalf("model/request logged %v", got[0]["tools"])
	}
}

func TestProcessToolCallsSuppliesResults(t *testing.T) {
	s := &spy{}
	pipe := hooks.NewPipeline()
	pipe.Register(hooks.ProcessToolCalls, s.hook("dry-run", func(in *hooks.Input) hooks.Decision {
		if len(in.ToolCalls) != 2 {
			t.Errorf("ProcessToolCalls saw %d calls", len(in.ToolCalls))
		}
		return hooks.Decision{ToolResults: []hooks.ToolResult{{ToolUseID: "toolu_1", Output: "mocked: nothing deleted"}}}
	}), hooks.RegisterOptions{})
	pipe.Register(hooks.PreToolUse, s.hook("spy", nil), hooks.RegisterOptions{})
	h := newHarness(t, harnessOpts{hooks: pipe, mode: loop.ModeBypass},
		streamBlocks("tool_use", toolUse("toolu_1", "Bash", map[string]any{"command": "touch deleted-marker"}), bashEcho("toolu_2", "real")),
		replyText("ok"))
	sid := h.newSession()
	h.prompt(sid, "x")
	if _, err := os.Stat(filepath.Join(h.cwd, "deleted-marker")); err == nil {
		t.Fatal("the supplied call ran")
	}
	req := h.model.Requests()[1]
	if text, isErr := toolResultIn(t, req, "toolu_1"); text != "mocked: nothing deleted" || isErr {
		t.Fatalf("toolu_1 = %q (%v)", text, isErr)
	}
	if text, _ := toolResultIn(t, req, "toolu_2"); !strings.Contains(text, "real") {
		t.Fatalf("toolu_2 = %q", text)
	}
	if fmt.Sprint(s.calls) != "[ProcessToolCalls#0 PreToolUse toolu_2]" {
		t.Fatalf("seams = %v", s.calls)
	}
	last := lastUpdate(t, h.editor.Updates(sid), "toolu_1")
	if last.Status != acp.ToolStatusCompleted || updateText(last) != "mocked: nothing deleted" {
		t.Fatalf("toolu_1 shown as %+v", last)
	}
	results := logData(logEvents(t, h.state, sid, ""), sessionlog.TypeToolResult)
	if results[0]["toolCallId"] != "toolu_1" || results[0]["resultFrom"] != "ProcessToolCalls" {
		t.Fatalf("tool/result = %v", results[0])
	}
}

func TestPanickingHookDoesNotBreakTheTurn(t *testing.T) {
	pipe, _ := withBuiltins(t, nil)
	pipe.Register(hooks.PreToolUse, hooks.Func("buggy", func(ctx context.Context, in *hooks.Input) (hooks.Decision, error) {
		var m map[string]bool
		m[in.ToolName] = true // panics: nil map
		return hooks.Decision{Permission: hooks.Deny}, nil
	}), hooks.RegisterOptions{Priority: 15})
	h := newHarness(t, harnessOpts{hooks: pipe, mode: loop.ModeBypass},
		streamBlocks("tool_use", bashEcho("toolu_1", "survived")),
		replyText("ok"))
	sid := h.newSession()
	if stop := h.prompt(sid, "x"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	if text, isErr := toolResultIn(t, h.model.Requests()[1], "toolu_1"); isErr || !strings.Contains(text, "survived") {
		t.Fatalf("result = %q (%v)", text, isErr)
	}
	errs := logData(logEvents(t, h.state, sid, ""), sessionlog.TypeHookError)
	if len(errs) != 1 || errs[0]["hook"] != "buggy" || errs[0]["panic"] != true {
		t.Fatalf("hook/error = %v", errs)
	}
}

func TestSubagentSeamsRecordIntoTheSubagentLog(t *testing.T) {
	s := &spy{}
	pipe := hooks.NewPipeline()
	for _, ev := range allEvents {
		pipe.Register(ev, s.hook("spy", nil), hooks.RegisterOptions{})
	}
	h := newHarness(t, harnessOpts{hooks: pipe},
		streamBlocks("tool_use", toolUse("toolu_task", "Task", map[string]any{"description": "look", "prompt": "Look around", "subagent_type": "explorer"})),
		replyText("found it"),
		replyText("The subagent found it."))
	h.editor.OnPermission = allow(acp.PermAllowOnce)
	sid := h.newSession()
	h.prompt(sid, "x")
	agentEvents := func(events []sessionlog.Event) []string {
		var out []string
		for _, d := range logData(events, sessionlog.TypeHookStart) {
			out = append(out, fmt.Sprint(d["event"], " ", d["agentId"]))
		}
		return out
	}
	child := agentEvents(logEvents(t, h.state, sid, "agent-toolu_task"))
	want := []string{"SubagentStart agent-toolu_task", "LoopStart agent-toolu_task", "PrepareRequest agent-toolu_task", "LLMRequest agent-toolu_task",
		"LLMResponse agent-toolu_task", "LoopEnd agent-toolu_task", "SubagentStop agent-toolu_task"}
	if diff := cmp.Diff(want, child); diff != "" {
		t.Fatalf("subagent log hook runs (-want +got):\n%s", diff)
	}
	for _, e := range agentEvents(logEvents(t, h.state, sid, "")) {
		if strings.Contains(e, "agent-") {
			t.Fatalf("the main log has a subagent hook run: %s", e)
		}
	}
}
