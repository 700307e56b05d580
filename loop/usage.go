package loop

import (
	"context"
	"math"
	"sync"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/llm"
)

// usageMeter is a session's model bill: the usage of every model call so
// far (subagents and compactions included) and the context the last
// response used. It has its own lock, so reading the bill never waits on
// the session's other state.
type usageMeter struct {
	mu            sync.Mutex
	priceOf       func(model string) *llm.Price // nil: no price known
	totals        hooks.Totals
	contextTokens int
	// tokens sums every response's usage by kind, for the turns' usage.
	tokens llm.Usage
}

// add counts one response of model.
func (m *usageMeter) add(u llm.Usage, model string) hooks.Totals {
	m.mu.Lock()
	defer m.mu.Unlock()
	first := m.totals.Requests == 0
	m.totals.Requests++
	m.tokens.InputTokens += u.InputTokens
	m.tokens.OutputTokens += u.OutputTokens
	m.tokens.CacheCreationInputTokens += u.CacheCreationInputTokens
	m.tokens.CacheReadInputTokens += u.CacheReadInputTokens
	m.totals.Tokens += int64(u.InputTokens + u.OutputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens)
	if p := m.price(model); p != nil {
		m.totals.CostUSD += p.Cost(u)
		m.totals.CostKnown = first || m.totals.CostKnown
	} else {
		m.totals.CostKnown = false
	}
	return m.totals
}

func (m *usageMeter) price(model string) *llm.Price {
	if m.priceOf == nil {
		return nil
	}
	return m.priceOf(model)
}

// setContext records the tokens the context now holds.
func (m *usageMeter) setContext(tokens int) {
	m.mu.Lock()
	m.contextTokens = tokens
	m.mu.Unlock()
}

// read returns the totals and the context now used.
func (m *usageMeter) read() (hooks.Totals, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.totals, m.contextTokens
}

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
	totals := s.usage.add(u, model)
	s.usage.setContext(contextTokens)
	s.notify(ctx, s.usageUpdate(totals, contextTokens))
}

// usageUpdate is the usage_update for the session's totals and the
// context now used.
func (s *Session) usageUpdate(totals hooks.Totals, contextTokens int) acp.UsageUpdate {
	up := acp.UsageUpdate{Used: int64(contextTokens), Size: int64(s.contextWindow())}
	if totals.CostKnown {
		up.Cost = &acp.Cost{Amount: math.Round(totals.CostUSD*1e6) / 1e6, Currency: "USD"}
	}
	return up
}

// reportWindow sends usage_update after the session's model changed: the
// context meter's size is the new model's window.
func (s *Session) reportWindow(ctx context.Context) {
	totals, used := s.usage.read()
	s.notify(ctx, s.usageUpdate(totals, used))
}

// tokensByKind is every response's usage so far, summed by kind.
func (m *usageMeter) tokensByKind() llm.Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.tokens
}

// turnUsage is what a turn spent: the usage since before, the meter's
// tokensByKind when the turn started; nil when the turn made no model
// call (a slash command).
func turnUsage(before, after llm.Usage) *acp.Usage {
	d := llm.Usage{
		InputTokens:              after.InputTokens - before.InputTokens,
		OutputTokens:             after.OutputTokens - before.OutputTokens,
		CacheCreationInputTokens: after.CacheCreationInputTokens - before.CacheCreationInputTokens,
		CacheReadInputTokens:     after.CacheReadInputTokens - before.CacheReadInputTokens,
	}
	if d == (llm.Usage{}) {
		return nil
	}
	return &acp.Usage{
		TotalTokens:       int64(d.ContextTokens()),
		InputTokens:       int64(d.InputTokens),
		OutputTokens:      int64(d.OutputTokens),
		CachedReadTokens:  int64(d.CacheReadInputTokens),
		CachedWriteTokens: int64(d.CacheCreationInputTokens),
	}
}
