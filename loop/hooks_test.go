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
	"github.com/cordis-agent/cordis/loop/looptest"
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
	h := looptest.NewHarness(t, looptest.Options{Hooks: pipe, Mode: loop.ModeBypass},
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_1", "Bash", map[string]any{"command": "rm -rf build"})),
		looptest.ReplyText("I will not delete it."))
	os.Mkdir(filepath.Join(h.Cwd, "build"), 0o755)
	h.Editor.OnPermission = neverAsk(t)
	sid := h.NewSession()
	h.Prompt(sid, "clean up")

	if _, err := os.Stat(filepath.Join(h.Cwd, "build")); err != nil {
		t.Fatalf("the denied command ran: %v", err)
	}
	text, isErr := looptest.ToolResult(t, h.Model.Requests()[1], "toolu_1")
	if !isErr || !strings.Contains(text, "deny Bash(rm -rf:*)") {
		t.Fatalf("tool_result = %q (error %v)", text, isErr)
	}
	// The editor sees the call fail with the rule.
	last := lastUpdate(t, h.Editor.Updates(sid), "toolu_1")
	if last.Status != acp.ToolStatusFailed || !strings.Contains(updateText(last), "Denied by a PreToolUse hook") || !strings.Contains(updateText(last), "Bash(rm -rf:*)") {
		t.Fatalf("final update = %+v", last)
	}
	// The session log holds the hook's decision and the verdict.
	events := logEvents(t, h.StateDir, sid, "")
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
	h := looptest.NewHarness(t, looptest.Options{Hooks: pipe, Mode: loop.ModeBypass},
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_1", "Bash", map[string]any{"command": "echo key=" + key})),
		looptest.ReplyText("done"))
	sid := h.NewSession()
	h.Prompt(sid, "print my key")

	text, _ := looptest.ToolResult(t, h.Model.Requests()[1], "toolu_1")
	if strings.Contains(text, key) || !strings.Contains(text, "[REDACTED:") {
		t.Fatalf("the command ran with the key: %q", text)
	}
	ups := h.Editor.Updates(sid)
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
	events := logEvents(t, h.StateDir, sid, "")
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
	h := looptest.NewHarness(t, looptest.Options{Hooks: pipe, Mode: loop.ModeBypass},
		looptest.StreamBlocks("tool_use", looptest.Text("Let me look."), bashEcho("toolu_1", "a"), bashEcho("toolu_2", "b")))
	sid := h.NewSession()
	if stop := h.Prompt(sid, "work"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	if n := len(h.Model.Requests()); n != 1 {
		t.Fatalf("%d model requests; the budget should have ended the turn after the first", n)
	}
	got := looptest.AgentText(h.Editor.Updates(sid))
	if !strings.Contains(got, "120 tokens used of the 100 allowed") || !strings.Contains(got, "raise the limit") {
		t.Fatalf("agent text = %q", got)
	}
	for _, id := range []string{"toolu_1"} {
		if last := lastUpdate(t, h.Editor.Updates(sid), id); last.Status != acp.ToolStatusFailed {
			t.Fatalf("%s ran over budget: %+v", id, last)
		}
	}
	// The next prompt ends before any model request.
	h.Prompt(sid, "more")
	if n := len(h.Model.Requests()); n != 1 {
		t.Fatalf("%d model requests after the budget was used", n)
	}
	events := logEvents(t, h.StateDir, sid, "")
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
	h := looptest.NewHarness(t, looptest.Options{Hooks: pipe}, looptest.ReplyText("that cost 120 tokens"))
	sid := h.NewSession()
	h.Prompt(sid, "one")

	closeSession(t, h, sid)
	pipe2, _ := withBuiltins(t, cfg)
	h2 := looptest.NewHarness(t, looptest.Options{Hooks: pipe2, Config: func(c *loop.Config) { c.StateDir = h.StateDir }})
	if err := h2.Editor.Call(h2.Ctx, acp.MethodSessionLoad, acp.LoadSessionRequest{SessionID: sid, Cwd: h.Cwd, MCPServers: []acp.MCPServer{}}, &acp.LoadSessionResponse{}); err != nil {
		t.Fatal(err)
	}
	h2.Prompt(sid, "two")
	if n := len(h2.Model.Requests()); n != 0 {
		t.Fatalf("%d requests: the restored session forgot its usage", n)
	}
	if got := looptest.AgentText(h2.Editor.Updates(sid)); !strings.Contains(got, "120 tokens used") {
		t.Fatalf("agent text = %q", got)
	}
}

func TestUsageUpdateReportsCumulativeCost(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{},
		looptest.Reply{Model: "claude-sonnet-4-5-20250929", InputTokens: 1000, Stop: "end_turn", Blocks: []looptest.Block{looptest.Text("one")}}.Handler(),
		looptest.Reply{Model: "claude-sonnet-4-5-20250929", InputTokens: 1000, Stop: "end_turn", Blocks: []looptest.Block{looptest.Text("two")}}.Handler())
	sid := h.NewSession()
	h.Prompt(sid, "a")
	h.Prompt(sid, "b")
	var costs []acp.Cost
	for _, u := range h.Editor.Updates(sid) {
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
	h := looptest.NewHarness(t, looptest.Options{Hooks: pipe, Mode: loop.ModeBypass},
		looptest.StreamBlocks("tool_use", bashEcho("toolu_1", "audited"), looptest.ToolUse("toolu_2", "Read", map[string]any{"file_path": "/nonexistent/x"})),
		looptest.ReplyText("ok"))
	sid := h.NewSession()
	h.Prompt(sid, "x")
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
	for _, s := range logData(logEvents(t, h.StateDir, sid, ""), sessionlog.TypeHookStart) {
		if s["hook"] == builtin.AuditLog {
			starts++
		}
	}
	if starts != 2 {
		t.Fatalf("audit-log ran %d times", starts)
	}
	// The editor still sees the real outputs.
	if !strings.Contains(updateText(lastUpdate(t, h.Editor.Updates(sid), "toolu_1")), "audited") {
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
	h := looptest.NewHarness(t, looptest.Options{Hooks: pipe, Config: func(c *loop.Config) { c.Tools = append(tools.Builtin(), bigTool{}) }},
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_big", "Big", map[string]any{})),
		looptest.ReplyText("That was long."))
	sid := h.NewSession()
	h.Prompt(sid, "print a lot")

	text, isErr := looptest.ToolResult(t, h.Model.Requests()[1], "toolu_big")
	if isErr || len(text) > 9000 || !strings.Contains(text, "result-compress cut") || !strings.HasPrefix(text, "line 0000000") || !strings.Contains(text, "-byte output") {
		t.Fatalf("the model got %d bytes (error %v): %.300q", len(text), isErr, text)
	}
	if shown := updateText(lastUpdate(t, h.Editor.Updates(sid), "toolu_big")); shown != text && shown != tools.Fenced(text, "") {
		t.Fatalf("the editor was shown %d bytes, the model %d", len(shown), len(text))
	}
	events := logEvents(t, h.StateDir, sid, "")
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
	h := looptest.NewHarness(t, looptest.Options{Hooks: pipe},
		looptest.Reply{InputTokens: 124000, Stop: "end_turn", Blocks: []looptest.Block{looptest.Text("Answer one.")}}.Handler(),
		looptest.Reply{InputTokens: 150000, Stop: "end_turn", Blocks: []looptest.Block{looptest.Text("Answer two.")}}.Handler(),
		looptest.ReplyText("SUMMARY of one and two"))
	sid := h.NewSession()
	h.Prompt(sid, "one")
	got := looptest.AgentText(h.Editor.Updates(sid))
	if !strings.HasPrefix(got, "Answer one.") || !strings.Contains(got, "fills 62% of the model's context window (124,020 of 200,000 tokens)") {
		t.Fatalf("after the first answer: %q", got)
	}
	h.Prompt(sid, "two")
	got = looptest.AgentText(h.Editor.Updates(sid))
	if !strings.Contains(got, "fills 75%") || !strings.Contains(got, "compacts the conversation when this turn ends") || !strings.Contains(got, "Compacted the conversation") {
		t.Fatalf("after the second answer: %q", got)
	}
	// The compaction ran at the end of the turn, with the history as input.
	if reqs := h.Model.Requests(); len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3 (two answers and the automatic compaction)", len(reqs))
	}
	events := logEvents(t, h.StateDir, sid, "")
	var texts []string
	for _, d := range logData(events, sessionlog.TypeAgentText) {
		texts = append(texts, d["text"].(string))
	}
	if len(texts) != 2 || !strings.Contains(texts[0], "62%") {
		t.Fatalf("logged agent text = %q", texts)
	}
	// The compaction is logged as one (shown from it, live and on load).
	if c := logData(events, sessionlog.TypeCompaction); len(c) != 1 || c[0]["id"] != "compaction-1" || c[0]["trigger"] != "auto" {
		t.Fatalf("compaction events = %v", c)
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
	h := looptest.NewHarness(t, looptest.Options{Hooks: pipe},
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_1", "TodoWrite", map[string]any{"todos": todos})),
		looptest.ReplyText("All done."),
		looptest.ReplyText("Really done now."))
	sid := h.NewSession()
	h.Prompt(sid, "fix it")
	reqs := h.Model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 (one refused stop)", len(reqs))
	}
	third, _ := json.Marshal(reqs[2]["messages"])
	if !strings.Contains(string(third), `- [pending] Run the tests`) || strings.Contains(string(third), "[completed]") {
		t.Fatalf("the reminder did not list the open item: %s", third)
	}
	steering := logData(logEvents(t, h.StateDir, sid, ""), sessionlog.TypeSteering)
	if len(steering) != 1 || !strings.Contains(steering[0]["reason"].(string), "Run the tests") {
		t.Fatalf("steering = %v", steering)
	}
}

func TestBuiltinMetricsShowInStatus(t *testing.T) {
	pipe, set := withBuiltins(t, nil)
	h := looptest.NewHarness(t, looptest.Options{Hooks: pipe, Mode: loop.ModeBypass, Config: func(c *loop.Config) { c.Status = set.Status }},
		looptest.StreamBlocks("tool_use", bashEcho("toolu_1", "a"), bashEcho("toolu_2", "b"), looptest.ToolUse("toolu_3", "Read", map[string]any{"file_path": "/nonexistent"})),
		looptest.ReplyText("ok"))
	sid := h.NewSession()
	h.Prompt(sid, "x")
	snap := set.Metrics.Snapshot(sid)
	if len(snap) != 2 || snap[0].Tool != "Bash" || snap[0].Calls != 2 || snap[1].Tool != "Read" || snap[1].Failures != 1 {
		t.Fatalf("metrics = %+v", snap)
	}
	h.Prompt(sid, "/status")
	if got := looptest.AgentText(h.Editor.Updates(sid)); !strings.Contains(got, "- Bash: 2, 0 failed") || !strings.Contains(got, "- Read: 1, 1 failed") {
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
	h := looptest.NewHarness(t, looptest.Options{Hooks: pipe},
		looptest.StreamBlocks("tool_use", bashEcho("toolu_1", "a")),
		looptest.ReplyText("done"))
	h.Editor.OnPermission = looptest.Allow(acp.PermAllowOnce)
	sid := h.NewSession()
	h.Prompt(sid, "x")
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
	events := logEvents(t, h.StateDir, sid, "")
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
	h := looptest.NewHarness(t, looptest.Options{Hooks: pipe}, looptest.ReplyText("Yes."), looptest.ReplyText("A longer answer."))
	sid := h.NewSession()
	h.Prompt(sid, "one")
	h.Prompt(sid, "two")
	reqs := h.Model.Requests()
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
	if got := logData(logEvents(t, h.StateDir, sid, ""), sessionlog.TypeModelRequest); fmt.Sprint(got[0]["tools"]) != "[Read]" {
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
	h := looptest.NewHarness(t, looptest.Options{Hooks: pipe, Mode: loop.ModeBypass},
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_1", "Bash", map[string]any{"command": "touch deleted-marker"}), bashEcho("toolu_2", "real")),
		looptest.ReplyText("ok"))
	sid := h.NewSession()
	h.Prompt(sid, "x")
	if _, err := os.Stat(filepath.Join(h.Cwd, "deleted-marker")); err == nil {
		t.Fatal("the supplied call ran")
	}
	req := h.Model.Requests()[1]
	if text, isErr := looptest.ToolResult(t, req, "toolu_1"); text != "mocked: nothing deleted" || isErr {
		t.Fatalf("toolu_1 = %q (%v)", text, isErr)
	}
	if text, _ := looptest.ToolResult(t, req, "toolu_2"); !strings.Contains(text, "real") {
		t.Fatalf("toolu_2 = %q", text)
	}
	if fmt.Sprint(s.calls) != "[ProcessToolCalls#0 PreToolUse toolu_2]" {
		t.Fatalf("seams = %v", s.calls)
	}
	last := lastUpdate(t, h.Editor.Updates(sid), "toolu_1")
	if last.Status != acp.ToolStatusCompleted || updateText(last) != tools.Fenced("mocked: nothing deleted", "") {
		t.Fatalf("toolu_1 shown as %+v", last)
	}
	results := logData(logEvents(t, h.StateDir, sid, ""), sessionlog.TypeToolResult)
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
	h := looptest.NewHarness(t, looptest.Options{Hooks: pipe, Mode: loop.ModeBypass},
		looptest.StreamBlocks("tool_use", bashEcho("toolu_1", "survived")),
		looptest.ReplyText("ok"))
	sid := h.NewSession()
	if stop := h.Prompt(sid, "x"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	if text, isErr := looptest.ToolResult(t, h.Model.Requests()[1], "toolu_1"); isErr || !strings.Contains(text, "survived") {
		t.Fatalf("result = %q (%v)", text, isErr)
	}
	errs := logData(logEvents(t, h.StateDir, sid, ""), sessionlog.TypeHookError)
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
	h := looptest.NewHarness(t, looptest.Options{Hooks: pipe},
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_task", "Task", map[string]any{"description": "look", "prompt": "Look around", "subagent_type": "explorer"})),
		looptest.ReplyText("found it"),
		looptest.ReplyText("The subagent found it."))
	h.Editor.OnPermission = looptest.Allow(acp.PermAllowOnce)
	sid := h.NewSession()
	h.Prompt(sid, "x")
	agentEvents := func(events []sessionlog.Event) []string {
		var out []string
		for _, d := range logData(events, sessionlog.TypeHookStart) {
			out = append(out, fmt.Sprint(d["event"], " ", d["agentId"]))
		}
		return out
	}
	child := agentEvents(logEvents(t, h.StateDir, sid, "agent-toolu_task"))
	want := []string{"SubagentStart agent-toolu_task", "LoopStart agent-toolu_task", "PrepareRequest agent-toolu_task", "LLMRequest agent-toolu_task",
		"LLMResponse agent-toolu_task", "LoopEnd agent-toolu_task", "SubagentStop agent-toolu_task"}
	if diff := cmp.Diff(want, child); diff != "" {
		t.Fatalf("subagent log hook runs (-want +got):\n%s", diff)
	}
	for _, e := range agentEvents(logEvents(t, h.StateDir, sid, "")) {
		if strings.Contains(e, "agent-") {
			t.Fatalf("the main log has a subagent hook run: %s", e)
		}
	}
}
