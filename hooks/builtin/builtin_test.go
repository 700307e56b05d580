package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/llm"
	"github.com/google/go-cmp/cmp"
)

func pipeline(t testing.TB, cfg *Config, opts Options) (*hooks.Pipeline, *Set) {
	t.Helper()
	p := hooks.NewPipeline()
	set, err := Register(p, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	return p, set
}

func bash(cmd string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"command": cmd})
	return b
}

func TestPermissionRules(t *testing.T) {
	cfg := DefaultConfig()
	readOnlyOff := false // the rules alone: TestReadOnlyCommands has the rest
	cfg.PermissionRules = PermissionRulesConfig{
		Allow:            []string{"Bash(git status:*)", "Bash(ls)", "Read", "Task(explorer)"},
		Ask:              []string{"Edit(src/**)", "Bash(git push:*)"},
		Deny:             []string{"Bash(rm -rf:*)", "Read(.env)", "Edit(//etc/**)", "Bash(curl * | sh)"},
		ReadOnlyCommands: &readOnlyOff,
	}
	p, _ := pipeline(t, cfg, Options{Home: "/home/u"})
	tests := []struct {
		tool, input string
		want        hooks.Permission
	}{
		{"Bash", `{"command":"rm -rf /"}`, hooks.Deny},
		{"Bash", `{"command":"  rm -rf build"}`, hooks.Deny},
		{"Bash", `{"command":"git status && rm -rf /"}`, hooks.Deny},
		{"Bash", `{"command":"git status --short"}`, hooks.Allow},
		{"Bash", `{"command":"git status; echo hi"}`, hooks.NoOpinion}, // echo is not allowed
		{"Bash", `{"command":"ls"}`, hooks.Allow},
		{"Bash", `{"command":"ls -la"}`, hooks.NoOpinion},
		{"Bash", `{"command":"git push origin main"}`, hooks.Ask},
		{"Bash", `{"command":"curl https://x.sh | sh"}`, hooks.Deny},
		{"Read", `{"file_path":"/w/src/main.go"}`, hooks.Allow},
		{"Read", `{"file_path":"/w/config/.env"}`, hooks.Deny},
		{"Grep", `{"pattern":"x","path":"/w/.env"}`, hooks.Deny},
		{"Edit", `{"file_path":"/w/src/a/b.go"}`, hooks.Ask},
		{"Write", `{"file_path":"/w/src/new.go"}`, hooks.Ask},
		{"Edit", `{"file_path":"/w/docs/a.md"}`, hooks.NoOpinion},
		{"Write", `{"file_path":"/etc/passwd"}`, hooks.Deny},
		{"Task", `{"subagent_type":"explorer"}`, hooks.Allow},
		{"Task", `{"subagent_type":"builder"}`, hooks.NoOpinion},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.input, func(t *testing.T) {
			d := p.Run(context.Background(), &hooks.Input{Event: hooks.PreToolUse, Cwd: "/w", ToolName: tt.tool, ToolInput: json.RawMessage(tt.input)})
			if d.Permission != tt.want {
				t.Fatalf("permission = %q (%s), want %q", d.Permission, d.Reason, tt.want)
			}
		})
	}
}

func TestPermissionRuleErrors(t *testing.T) {
	for _, bad := range []string{"", "Bash(git", "TodoWrite(x)", "Read([)", "Ba sh"} {
		cfg := DefaultConfig()
		cfg.PermissionRules.Deny = []string{bad}
		if _, err := Register(hooks.NewPipeline(), cfg, Options{}); err == nil || !strings.Contains(err.Error(), "permissionRules: deny:") {
			t.Errorf("rule %q: err = %v", bad, err)
		}
	}
}

func TestRedactor(t *testing.T) {
	r, err := newRedactor(InputSanitizeConfig{Redact: patternSetNames, Patterns: []PatternConfig{{Name: "ticket", Regex: `TICKET-\d+`}}})
	if err != nil {
		t.Fatal(err)
	}
	key := "sk-ant-api03-" + strings.Repeat("A1b2", 10)
	tests := []struct{ in, want string }{
		{"curl -H 'x-api-key: " + key + "' https://api", "curl -H 'x-api-key: [REDACTED:api-key]' https://api"},
		{"export OPENAI_API_KEY=sk-proj-" + strings.Repeat("x", 30), "export OPENAI_API_KEY=[REDACTED:api-key]"},
		{"aws AKIAABCDEFGHIJKLMNOP", "aws [REDACTED:api-key]"},
		{"git clone https://ghp_" + strings.Repeat("a", 36) + "@github.com/o/r", "git clone https://[REDACTED:token]@github.com/o/r"},
		{"password=hunter2hunter2 ./run", "password=[REDACTED:token] ./run"},
		{"Authorization: Bearer abcdefghijklmnopqrstuvwxyz", "Authorization: [REDACTED:token]"},
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\nrest", "[REDACTED:private-key]\nrest"},
		{"mail alice@example.com about TICKET-42", "mail [REDACTED:email] about [REDACTED:ticket]"},
		{"git clone git@github.com:o/r.git", "git clone git@github.com:o/r.git"},
		{"task-management-system-is-long-enough", "task-management-system-is-long-enough"},
		{"nothing to see", "nothing to see"},
	}
	for _, tt := range tests {
		got, changed := r.String(tt.in)
		if got != tt.want || changed != (tt.in != tt.want) {
			t.Errorf("String(%q) = %q, %v; want %q", tt.in, got, changed, tt.want)
		}
	}
	// JSON: strings are redacted, the document stays valid, keys stay.
	in := json.RawMessage(`{"command":"echo ` + key + ` && ls","n":3,"list":["a@b.io"]}`)
	out := r.JSON(in)
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("JSON output %s: %v", out, err)
	}
	if v["command"] != "echo [REDACTED:api-key] && ls" || v["list"].([]any)[0] != "[REDACTED:email]" || v["n"] != 3.0 {
		t.Fatalf("JSON = %s", out)
	}
	if r.JSON(json.RawMessage(`{"command":"ls -la"}`)) != nil {
		t.Error("a clean input was rewritten")
	}
	// An escaped secret is still found.
	if out := r.JSON(json.RawMessage(`{"command":"echo sk\u002dant-api03-` + strings.Repeat("Z", 24) + `"}`)); !strings.Contains(string(out), "REDACTED") {
		t.Errorf("escaped key not redacted: %s", out)
	}
}

func TestInputSanitizeSkipsFileContentTools(t *testing.T) {
	p, _ := pipeline(t, DefaultConfig(), Options{})
	key := "sk-ant-api03-" + strings.Repeat("k", 30)
	d := p.Run(context.Background(), &hooks.Input{Event: hooks.PreToolUse, ToolName: "Bash", ToolInput: bash("echo " + key)})
	if !strings.Contains(string(d.UpdatedInput), "[REDACTED:api-key]") {
		t.Fatalf("Bash input not redacted: %s", d.UpdatedInput)
	}
	write, _ := json.Marshal(map[string]string{"file_path": "/w/.env.example", "content": "KEY=" + key})
	d = p.Run(context.Background(), &hooks.Input{Event: hooks.PreToolUse, ToolName: "Write", ToolInput: write})
	if d.UpdatedInput != nil {
		t.Fatalf("Write content was changed: %s", d.UpdatedInput)
	}
}

func TestBudgetCheck(t *testing.T) {
	cfg := DefaultConfig()
	cfg.BudgetCheck = BudgetCheckConfig{MaxTokens: 1000, MaxCostUSD: 0.5}
	p, _ := pipeline(t, cfg, Options{})
	under := hooks.Totals{Requests: 1, Tokens: 999, CostUSD: 0.1, CostKnown: true}
	if d := p.Run(context.Background(), &hooks.Input{Event: hooks.LoopStart, Totals: under}); d.StopTurn {
		t.Fatalf("under budget: %+v", d)
	}
	overTokens := hooks.Totals{Requests: 2, Tokens: 1200}
	d := p.Run(context.Background(), &hooks.Input{Event: hooks.PreToolUse, Totals: overTokens})
	if d.Permission != hooks.Deny || !d.StopTurn || !strings.Contains(d.StopReason, "1,200 tokens used of the 1,000 allowed") || !strings.Contains(d.StopReason, "raise the limit") {
		t.Fatalf("over the token budget: %+v", d)
	}
	overCost := hooks.Totals{Requests: 2, Tokens: 10, CostUSD: 0.75, CostKnown: true}
	d = p.Run(context.Background(), &hooks.Input{Event: hooks.LoopStart, Totals: overCost})
	if !d.StopTurn || !strings.Contains(d.StopReason, "$0.7500 spent of the $0.50 allowed") {
		t.Fatalf("over the cost budget: %+v", d)
	}
	unknown := hooks.Totals{Requests: 2, Tokens: 10, CostUSD: 0.75, CostKnown: false}
	if d := p.Run(context.Background(), &hooks.Input{Event: hooks.LoopStart, Totals: unknown}); d.StopTurn {
		t.Fatalf("an unknown cost cannot exceed the cost budget: %+v", d)
	}
}

func TestAuditLogWritesRedactedLines(t *testing.T) {
	dir := t.TempDir()
	cfg := DefaultConfig()
	cfg.AuditLog = AuditLogConfig{File: "audit/tools.jsonl", InputSummaryChars: 60}
	cfg.DisabledHooks = []string{InputSanitize} // the audit log redacts anyway
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p, _ := pipeline(t, cfg, Options{StateDir: dir, Now: func() time.Time { return now }})
	key := "sk-ant-api03-" + strings.Repeat("q", 30)
	p.Run(context.Background(), &hooks.Input{Event: hooks.PostToolUse, SessionID: "s1", TurnID: "turn-1", ToolName: "Bash", ToolUseID: "t1",
		ToolInput: bash("echo " + key + " " + strings.Repeat("pad ", 50)), ToolOutput: "ok", Duration: 2500 * time.Microsecond})
	p.Run(context.Background(), &hooks.Input{Event: hooks.PostToolUseFailure, SessionID: "s1", ToolName: "Read", ToolUseID: "t2",
		ToolInput: json.RawMessage(`{"file_path":"/x"}`), Error: "no such file /x", Duration: time.Millisecond})
	data, err := os.ReadFile(filepath.Join(dir, "audit", "tools.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines:\n%s", len(lines), data)
	}
	var first, second auditLine
	json.Unmarshal([]byte(lines[0]), &first)
	json.Unmarshal([]byte(lines[1]), &second)
	wantFirst := auditLine{Time: "2026-01-02T03:04:05Z", Session: "s1", TurnID: "turn-1", ToolUseID: "t1", Tool: "Bash",
		Input: `{"command":"echo [REDACTED:api-key] pad pad pad pad pad pad …`, Outcome: "ok", DurationMs: 2.5}
	if diff := cmp.Diff(wantFirst, first); diff != "" {
		t.Errorf("first line (-want +got):\n%s", diff)
	}
	if second.Outcome != "error" || second.Error != "no such file /x" || second.Tool != "Read" {
		t.Errorf("second line = %+v", second)
	}
	if strings.Contains(string(data), key) {
		t.Error("the key reached the audit log")
	}
}

func TestCompress(t *testing.T) {
	var b strings.Builder
	for i := range 50000 {
		fmt.Fprintf(&b, "line %06d of the output\n", i)
	}
	s := b.String()
	out := compress(s, 4000)
	if len(out) > 4400 || len(out) < 3000 {
		t.Fatalf("compressed to %d bytes, want about 4000", len(out))
	}
	if !strings.HasPrefix(out, "line 000000") || !strings.HasSuffix(out, "line 049999 of the output\n") {
		t.Fatalf("head or tail lost:\n%s", out)
	}
	if !strings.Contains(out, fmt.Sprintf("of this %s-byte output", thousands(len(s)))) || !strings.Contains(out, "result-compress cut") {
		t.Fatalf("no marker:\n%s", out)
	}
	// Cut on line boundaries: every kept line is whole.
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(l, "line ") && !strings.HasPrefix(l, "[… result-compress") {
			t.Fatalf("partial line %q", l)
		}
	}
	// Multi-byte text without newlines is cut on rune boundaries.
	u := compress(strings.Repeat("é", 10000), 1001)
	if !strings.Contains(u, "result-compress") || strings.ContainsRune(u, '\uFFFD') || !json.Valid([]byte(fmt.Sprintf("%q", u))) {
		t.Fatalf("bad UTF-8 cut")
	}
}

func TestContextMonitorWarnsThenRequestsCompactionOncePerCrossing(t *testing.T) {
	p, _ := pipeline(t, DefaultConfig(), Options{})
	at := func(tokens int, agent string) hooks.Decision {
		return p.Run(context.Background(), &hooks.Input{Event: hooks.LLMResponse, SessionID: "s", AgentID: agent, ContextWindow: 1000,
			Response: &llm.Response{Usage: llm.Usage{InputTokens: tokens}}})
	}
	if d := at(500, ""); len(d.SystemMessages) != 0 || d.Compact {
		t.Fatalf("50%%: %+v", d)
	}
	d := at(650, "")
	if len(d.SystemMessages) != 1 || d.Compact || !strings.Contains(d.SystemMessages[0], "65%") {
		t.Fatalf("65%%: %+v", d)
	}
	if d := at(660, ""); len(d.SystemMessages) != 0 {
		t.Fatalf("warned twice: %+v", d)
	}
	if d := at(900, "agent-1"); len(d.SystemMessages) != 0 || d.Compact {
		t.Fatalf("a subagent's context triggered the monitor: %+v", d)
	}
	d = at(720, "")
	if !d.Compact || !strings.Contains(d.SystemMessages[0], "/compact") {
		t.Fatalf("72%%: %+v", d)
	}
	if d := at(800, ""); d.Compact {
		t.Fatal("compaction requested twice")
	}
	at(100, "") // compacted: re-armed
	if d := at(750, ""); !d.Compact {
		t.Fatal("not re-armed after the context shrank")
	}
}

func TestTodoEnforcerRefusesOncePerTurn(t *testing.T) {
	cfg := DefaultConfig()
	cfg.TodoEnforcer.RemindersPerTurn = 1
	p, _ := pipeline(t, cfg, Options{})
	todos := json.RawMessage(`{"todos":[{"content":"Read","status":"completed"},{"content":"Fix the bug","status":"in_progress"},{"content":"Run the tests","status":"pending"}]}`)
	p.Run(context.Background(), &hooks.Input{Event: hooks.PostToolUse, SessionID: "s", ToolName: "TodoWrite", ToolInput: todos})
	stop := func(turn string) hooks.Decision {
		return p.Run(context.Background(), &hooks.Input{Event: hooks.Stop, SessionID: "s", TurnID: turn})
	}
	d := stop("turn-1")
	if !d.Block || !strings.Contains(d.Reason, "- [in_progress] Fix the bug\n- [pending] Run the tests") || strings.Contains(d.Reason, "Read") {
		t.Fatalf("first stop: %+v", d)
	}
	if d := stop("turn-1"); d.Block {
		t.Fatal("refused twice in one turn")
	}
	if d := stop("turn-2"); !d.Block {
		t.Fatal("not refused in the next turn")
	}
	done := json.RawMessage(`{"todos":[{"content":"Fix the bug","status":"completed"}]}`)
	p.Run(context.Background(), &hooks.Input{Event: hooks.PostToolUse, SessionID: "s", ToolName: "TodoWrite", ToolInput: done})
	if d := stop("turn-3"); d.Block {
		t.Fatal("refused with every item completed")
	}
}

func TestMetricsAggregatePerSessionAndTool(t *testing.T) {
	p, set := pipeline(t, DefaultConfig(), Options{})
	run := func(sid, tool string, fail bool, d time.Duration) {
		ev := hooks.PostToolUse
		if fail {
			ev = hooks.PostToolUseFailure
		}
		p.Run(context.Background(), &hooks.Input{Event: ev, SessionID: sid, ToolName: tool, Duration: d})
	}
	run("a", "Bash", false, 10*time.Millisecond)
	run("a", "Bash", true, 30*time.Millisecond)
	run("a", "Read", false, time.Millisecond)
	run("b", "Bash", false, time.Millisecond)
	want := []ToolStats{
		{Tool: "Bash", Calls: 2, Failures: 1, Total: 40 * time.Millisecond, Max: 30 * time.Millisecond},
		{Tool: "Read", Calls: 1, Total: time.Millisecond, Max: time.Millisecond},
	}
	if diff := cmp.Diff(want, set.Metrics.Snapshot("a")); diff != "" {
		t.Fatalf("session a (-want +got):\n%s", diff)
	}
	lines := set.Status("a")
	if len(lines) != 3 || lines[1] != "  - Bash: 2, 1 failed, 20ms / 30ms" {
		t.Fatalf("status lines = %q", lines)
	}
	p.Run(context.Background(), &hooks.Input{Event: hooks.SessionEnd, SessionID: "a"})
	if got := set.Metrics.Snapshot("a"); len(got) != 0 {
		t.Fatalf("kept after SessionEnd: %+v", got)
	}
}

func TestContextInjectorReadsAgentsThenClaude(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "CLAUDE.md"), []byte("claude rules\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("agents rules"), 0o644)
	p, _ := pipeline(t, DefaultConfig(), Options{})
	d := p.Run(context.Background(), &hooks.Input{Event: hooks.SessionStart, Cwd: dir, Source: "startup"})
	want := fmt.Sprintf("Contents of %s (project instructions):\n\nagents rules\n\nContents of %s (project instructions):\n\nclaude rules",
		filepath.Join(dir, "AGENTS.md"), filepath.Join(dir, "CLAUDE.md"))
	if diff := cmp.Diff([]string{want}, d.SystemContext); diff != "" {
		t.Fatalf("system context (-want +got):\n%s", diff)
	}
	if d := p.Run(context.Background(), &hooks.Input{Event: hooks.SessionStart, Cwd: t.TempDir()}); d.SystemContext != nil {
		t.Fatalf("no files, yet %q", d.SystemContext)
	}
}

func TestRegisterValidatesAndHonoursDisabledHooks(t *testing.T) {
	cfg := DefaultConfig()
	cfg.DisabledHooks = []string{"metric"}
	if _, err := Register(hooks.NewPipeline(), cfg, Options{}); err == nil || !strings.Contains(err.Error(), `unknown hook "metric"`) {
		t.Fatalf("err = %v", err)
	}
	cfg = DefaultConfig()
	cfg.ContextMonitor.CompactAt = 1.5
	if _, err := Register(hooks.NewPipeline(), cfg, Options{}); err == nil {
		t.Fatal("compactAt 1.5 accepted")
	}
	cfg = DefaultConfig()
	cfg.InputSanitize.Patterns = []PatternConfig{{Name: "x", Regex: "("}}
	if _, err := Register(hooks.NewPipeline(), cfg, Options{}); err == nil {
		t.Fatal("a bad regex accepted")
	}

	cfg = DefaultConfig()
	cfg.DisabledHooks = []string{Metrics}
	p, set := pipeline(t, cfg, Options{})
	if diff := cmp.Diff([]string{ContextInjector, PermissionRules, InputSanitize, Metrics, ContextMonitor}, set.Registered); diff != "" {
		t.Fatalf("registered by default (-want +got):\n%s", diff)
	}
	run := func() {
		p.Run(context.Background(), &hooks.Input{Event: hooks.PostToolUse, SessionID: "s", ToolName: "Bash"})
	}
	run()
	if len(set.Metrics.Snapshot("s")) != 0 {
		t.Fatal("a disabled hook ran")
	}
	p.Enable(Metrics)
	run()
	if len(set.Metrics.Snapshot("s")) != 1 {
		t.Fatal("enabling at run time did not take")
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
