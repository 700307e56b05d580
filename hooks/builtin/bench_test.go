package builtin

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/sessionlog"
)

// allOn configures every built-in so that each one runs on a tool call.
func allOn(b testing.TB) *Config {
	cfg := DefaultConfig()
	cfg.PermissionRules = PermissionRulesConfig{
		Allow: []string{"Bash(go test:*)", "Bash(git status:*)", "Read", "Grep"},
		Ask:   []string{"Bash(git push:*)", "Edit(src/**)"},
		Deny:  []string{"Bash(rm -rf:*)", "Read(.env)", "Bash(curl * | sh)"},
	}
	cfg.BudgetCheck = BudgetCheckConfig{MaxTokens: 1 << 40, MaxCostUSD: 1e6}
	cfg.AuditLog = AuditLogConfig{File: filepath.Join(b.TempDir(), "audit.jsonl")}
	cfg.ResultCompress = ResultCompressConfig{MaxTokens: 4000}
	cfg.TodoEnforcer = TodoEnforcerConfig{RemindersPerTurn: 1}
	return cfg
}

// BenchmarkPipelineToolCall measures the hook overhead of one tool call
// (PreToolUse then PostToolUse) with every built-in on. "history" is how
// many tool calls the session made before: the cost and the allocations
// must not grow with it. "log" records hook/start and hook/result through
// a real session log file, "nolog" through a no-op.
func BenchmarkPipelineToolCall(b *testing.B) {
	for _, history := range []int{0, 10000} {
		for _, withLog := range []bool{false, true} {
			name := fmt.Sprintf("history=%d/nolog", history)
			if withLog {
				name = fmt.Sprintf("history=%d/log", history)
			}
			b.Run(name, func(b *testing.B) {
				p, _ := pipeline(b, allOn(b), Options{StateDir: b.TempDir()})
				record := func(string, any) {}
				if withLog {
					w, err := sessionlog.Create(filepath.Join(b.TempDir(), "s.jsonl"))
					if err != nil {
						b.Fatal(err)
					}
					b.Cleanup(func() { w.Close() })
					record = func(typ string, data any) { w.Append(typ, data) }
				}
				ctx := context.Background()
				input := bash("go test ./... -run TestPipeline -count=1 2>&1 | tail -20")
				output := strings.Repeat("ok  \tgithub.com/cordis-agent/cordis/hooks\t0.012s\n", 40)
				response := hooks.ToolResponseJSON(output)
				totals := hooks.Totals{Requests: 3, Tokens: 12345, CostUSD: 0.04, CostKnown: true}
				for i := range history {
					p.Run(ctx, &hooks.Input{Event: hooks.PostToolUse, SessionID: "s", ToolName: fmt.Sprint("Tool", i%8), Duration: time.Millisecond})
				}
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					pre := hooks.Input{Event: hooks.PreToolUse, SessionID: "s", Cwd: "/work", ToolName: "Bash", ToolUseID: "toolu_1", ToolInput: input, Totals: totals, Record: record}
					p.Run(ctx, &pre)
					post := hooks.Input{Event: hooks.PostToolUse, SessionID: "s", Cwd: "/work", ToolName: "Bash", ToolUseID: "toolu_1", ToolInput: input,
						ToolOutput: output, ToolResponse: response, Duration: 3 * time.Millisecond, Totals: totals, Record: record}
					p.Run(ctx, &post)
				}
			})
		}
	}
}
