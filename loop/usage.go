package loop

import (
	"context"
	"math"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/llm"
)

// reportUsage adds a response's usage to the session's totals and sends
// usage_update: the context used, and the session's cost so far when every
// response came from a model with a known price.
func (s *Session) reportUsage(ctx context.Context, u llm.Usage, model string) {
	s.bill(ctx, u, model, u.ContextTokens())
}

// bill adds a response's usage to the session's totals, sets the context
// now used to contextTokens, and sends usage_update. Every model call is
// billed here: a turn's steps and a compaction's summary alike.
func (s *Session) bill(ctx context.Context, u llm.Usage, model string, contextTokens int) {
	s.mu.Lock()
	s.lastContextTokens = contextTokens
	s.addUsage(u, model)
	totals := s.totals
	s.mu.Unlock()
	up := acp.UsageUpdate{Used: int64(contextTokens), Size: int64(s.agent.cfg.ContextWindow)}
	if totals.CostKnown {
		up.Cost = &acp.Cost{Amount: math.Round(totals.CostUSD*1e6) / 1e6, Currency: "USD"}
	}
	s.notify(ctx, up)
}

// addUsage adds one response to the session's totals; s.mu must be held.
func (s *Session) addUsage(u llm.Usage, model string) {
	first := s.totals.Requests == 0
	s.totals.Requests++
	s.totals.Tokens += int64(u.InputTokens + u.OutputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens)
	if p, ok := priceOf(model); ok {
		s.totals.CostUSD += p.cost(u)
		s.totals.CostKnown = first || s.totals.CostKnown
	} else {
		s.totals.CostKnown = false
	}
}
