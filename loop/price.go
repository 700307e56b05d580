package loop

import (
	"github.com/cordis-agent/cordis/llm"
)

// modelInfo is what the model table says of model, with the window capped
// by the agent's contextWindow when one is configured. It is the one
// source of a model's window, output limit and prices in the loop.
func (a *Agent) modelInfo(model string) llm.ModelInfo {
	table := a.cfg.ModelTable
	if table == nil {
		table = llm.Models()
	}
	info := table.Lookup(model)
	if c := a.cfg.ContextWindow; c > 0 && c < info.ContextWindow {
		info.ContextWindow = c
	}
	return info
}

// priceOf is model's price; nil when the table does not know it (the
// cost is then unknown: usage_update carries none).
func (a *Agent) priceOf(model string) *llm.Price { return a.modelInfo(model).Price }

// contextWindow is the window of the session's current model (s.mu must
// not be held).
func (s *Session) contextWindow() int {
	s.mu.Lock()
	model := s.model
	s.mu.Unlock()
	return s.agent.modelInfo(model).ContextWindow
}
