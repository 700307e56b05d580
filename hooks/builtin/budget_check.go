package builtin

import (
	"fmt"
	"strings"

	"github.com/cordis-agent/cordis/hooks"
)

// BudgetCheckConfig configures budget-check.
type BudgetCheckConfig struct {
	MaxTokens  int64   `yaml:"maxTokens,omitempty" json:"maxTokens,omitempty" jsonschema:"minimum=0,description=Tokens a session may use (input + output + cache writes and reads; subagents included); 0: no limit"`
	MaxCostUSD float64 `yaml:"maxCostUSD,omitempty" json:"maxCostUSD,omitempty" jsonschema:"minimum=0,description=US dollars a session may spend (counted while every response comes from a model with a known price); 0: no limit"`
}

// budgetCheckHooks end the turn once the session has used its budget:
// before the next model request (LoopStart) and before any further tool
// call (PreToolUse: denied). The session's totals come from the loop, so
// they survive a restart.
func budgetCheckHooks(cfg BudgetCheckConfig) ([]registration, error) {
	if cfg.MaxTokens < 0 || cfg.MaxCostUSD < 0 {
		return nil, fmt.Errorf("limits must not be negative")
	}
	if cfg.MaxTokens == 0 && cfg.MaxCostUSD == 0 {
		return nil, nil
	}
	over := func(t hooks.Totals) string {
		var spent []string
		if cfg.MaxTokens > 0 && t.Tokens >= cfg.MaxTokens {
			spent = append(spent, fmt.Sprintf("%s tokens used of the %s allowed (budgetCheck.maxTokens)", thousands(t.Tokens), thousands(cfg.MaxTokens)))
		}
		if cfg.MaxCostUSD > 0 && t.CostKnown && t.CostUSD >= cfg.MaxCostUSD {
			spent = append(spent, fmt.Sprintf("$%.4f spent of the $%.2f allowed (budgetCheck.maxCostUSD)", t.CostUSD, cfg.MaxCostUSD))
		}
		if spent == nil {
			return ""
		}
		return "This session has used its budget: " + strings.Join(spent, "; ") + ". To continue, raise the limit in the hooks/builtin entry of cordis.yml (or add budget-check to its disabledHooks) and restart cordis."
	}
	return []registration{
		{event: hooks.LoopStart, priority: 10, run: func(in *hooks.Input) (hooks.Decision, error) {
			if msg := over(in.Totals); msg != "" {
				return hooks.Decision{StopTurn: true, StopReason: msg}, nil
			}
			return hooks.Decision{}, nil
		}},
		{event: hooks.PreToolUse, priority: 30, run: func(in *hooks.Input) (hooks.Decision, error) {
			if msg := over(in.Totals); msg != "" {
				return hooks.Decision{Permission: hooks.Deny, Reason: msg, StopTurn: true, StopReason: msg}, nil
			}
			return hooks.Decision{}, nil
		}},
	}, nil
}

// thousands formats n with comma separators.
func thousands[T ~int | ~int64](n T) string {
	s := fmt.Sprint(int64(n))
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
