package loop

import (
	"strings"

	"github.com/cordis-agent/cordis/llm"
)

// price is a model's list price in US dollars per million tokens. Cache
// writes cost 1.25x and cache reads 0.1x the input price.
type price struct {
	input, output float64
}

// prices are the models whose cost cordis reports; any other model's cost
// is unknown (usage_update then carries no cost).
var prices = []struct {
	model string
	price price
}{
	{"claude-sonnet-4-5", price{3, 15}},
	{"claude-opus-4-1", price{15, 75}},
	{"claude-haiku-4-5", price{1, 5}},
}

// priceOf finds the price of model: a listed name, or a dated snapshot of
// one ("claude-sonnet-4-5-20250929").
func priceOf(model string) (price, bool) {
	for _, p := range prices {
		if model == p.model || strings.HasPrefix(model, p.model+"-") && isDigits(model[len(p.model)+1:]) {
			return p.price, true
		}
	}
	return price{}, false
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// cost is the price of one response's usage in US dollars.
func (p price) cost(u llm.Usage) float64 {
	in := float64(u.InputTokens) + 1.25*float64(u.CacheCreationInputTokens) + 0.1*float64(u.CacheReadInputTokens)
	return (in*p.input + float64(u.OutputTokens)*p.output) / 1e6
}
