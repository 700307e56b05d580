package loop

import (
	"strings"

	"github.com/cordis-agent/cordis/llm"
)

// price is a model's list price in US dollars per million tokens: input
// read from the prompt cache and written to it (5-minute entries) are
// priced apart from the rest.
type price struct {
	input, output         float64
	cacheWrite, cacheRead float64
}

// anthropicPrice is the price of an Anthropic model: cache writes cost
// 1.25x and cache reads 0.1x the input price.
func anthropicPrice(input, output float64) price {
	return price{input: input, output: output, cacheWrite: input * 1.25, cacheRead: input / 10}
}

// prices are the models whose cost cordis reports; any other model's cost
// is unknown (usage_update then carries no cost).
var prices = []struct {
	model string
	price price
}{
	{"claude-sonnet-4-5", anthropicPrice(3, 15)},
	{"claude-sonnet-4-6", anthropicPrice(3, 15)},
	{"claude-opus-4-1", anthropicPrice(15, 75)},
	{"claude-opus-4-5", anthropicPrice(5, 25)},
	{"claude-opus-4-6", anthropicPrice(5, 25)},
	{"claude-haiku-4-5", anthropicPrice(1, 5)},
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
	return (float64(u.InputTokens)*p.input + float64(u.CacheCreationInputTokens)*p.cacheWrite +
		float64(u.CacheReadInputTokens)*p.cacheRead + float64(u.OutputTokens)*p.output) / 1e6
}
