package llm

import (
	"fmt"
	"strings"
	"sync/atomic"
)

// Price is a model's list price in US dollars per million tokens. Input
// read from the prompt cache and written to it (5-minute entries) are
// priced apart from the rest.
type Price struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheWrite float64 `json:"cacheWrite"`
	CacheRead  float64 `json:"cacheRead"`
	// WebSearch is the price of one search the provider ran itself
	// (Usage.WebSearchRequests), in US dollars per search.
	WebSearch float64 `json:"webSearch,omitempty"`
}

// Cost is the price of one response's usage in US dollars.
func (p Price) Cost(u Usage) float64 {
	return (float64(u.InputTokens)*p.Input+float64(u.CacheCreationInputTokens)*p.CacheWrite+
		float64(u.CacheReadInputTokens)*p.CacheRead+float64(u.OutputTokens)*p.Output)/1e6 +
		float64(u.WebSearchRequests)*p.WebSearch
}

// ModelInfo is everything cordis knows about a model: how big its context
// window is, how much it may answer, what requests it accepts and what it
// costs.
type ModelInfo struct {
	// ContextWindow is the tokens a request (input plus output) may hold.
	ContextWindow int
	// MaxOutput is the most output tokens one response may have.
	MaxOutput int
	ModelCaps
	// Price is nil when cordis does not know the model's price (the cost
	// is then unknown, never guessed).
	Price *Price
	// Known is false when nothing in the table matched the name: the
	// window and output limit are then safe defaults.
	Known bool
}

// The defaults for a model the table does not know: a window most current
// models have at least (a smaller real one is found out by the API's
// context-length error, which compacts and retries), and an output limit
// every provider accepts.
const (
	DefaultContextWindow = 200_000
	DefaultMaxOutput     = 8192
)

// modelRow is one row of the built-in table: a model name, matched as is
// and in its dated snapshots, or (family) any name it begins.
type modelRow struct {
	name   string
	family bool
	window int
	output int
	price  *Price
}

// anthropicPrice: cache writes (5-minute) cost 1.25x and cache reads 0.1x
// the input price; web search is $10 per 1,000 searches on every model.
func anthropicPrice(input, output float64) *Price {
	return &Price{Input: input, Output: output, CacheWrite: input * 1.25, CacheRead: input / 10, WebSearch: 10.0 / 1000}
}

// openAIPrice: OpenAI charges nothing extra to write its automatic cache
// and reads it at the cached-input price.
func openAIPrice(input, cached, output float64) *Price {
	return &Price{Input: input, Output: output, CacheWrite: input, CacheRead: cached}
}

// builtinModels is the model table. Sources (list prices, USD per million
// tokens): Anthropic's models overview and pricing pages (each model's
// page gives its window and output limit; the 1M windows of Opus 4.6 and
// Sonnet 4.6 are their standard windows, earlier models reach 1M only
// with a beta header cordis does not send), OpenAI's model pages,
// DeepSeek's pricing page (V3.2: one price for deepseek-chat and
// deepseek-reasoner), Mistral's and Qwen's model lists (windows only:
// their prices differ by alias and region). Families come after the
// names they contain; a name beats a family.
var builtinModels = []modelRow{
	// Anthropic.
	{name: "claude-opus-4-7", window: 1_000_000, output: 128_000, price: anthropicPrice(5, 25)},
	{name: "claude-opus-4-6", window: 1_000_000, output: 128_000, price: anthropicPrice(5, 25)},
	{name: "claude-sonnet-4-6", window: 1_000_000, output: 128_000, price: anthropicPrice(3, 15)},
	{name: "claude-opus-4-5", window: 200_000, output: 64_000, price: anthropicPrice(5, 25)},
	{name: "claude-sonnet-4-5", window: 200_000, output: 64_000, price: anthropicPrice(3, 15)},
	{name: "claude-haiku-4-5", window: 200_000, output: 64_000, price: anthropicPrice(1, 5)},
	{name: "claude-opus-4-1", window: 200_000, output: 32_000, price: anthropicPrice(15, 75)},
	{name: "claude-opus-4", window: 200_000, output: 32_000, price: anthropicPrice(15, 75)},
	{name: "claude-sonnet-4", window: 200_000, output: 64_000, price: anthropicPrice(3, 15)},
	{name: "claude-3-7-sonnet", window: 200_000, output: 64_000, price: anthropicPrice(3, 15)},
	{name: "claude-3-5-haiku", window: 200_000, output: 8192, price: anthropicPrice(0.8, 4)},
	{name: "claude-", family: true, window: 200_000, output: 32_000},

	// OpenAI.
	{name: "gpt-5-nano", window: 400_000, output: 128_000, price: openAIPrice(0.05, 0.005, 0.40)},
	{name: "gpt-5-mini", window: 400_000, output: 128_000, price: openAIPrice(0.25, 0.025, 2)},
	{name: "gpt-5", window: 400_000, output: 128_000, price: openAIPrice(1.25, 0.125, 10)},
	{name: "gpt-5", family: true, window: 400_000, output: 128_000},
	{name: "gpt-4.1-nano", window: 1_047_576, output: 32_768, price: openAIPrice(0.10, 0.025, 0.40)},
	{name: "gpt-4.1-mini", window: 1_047_576, output: 32_768, price: openAIPrice(0.40, 0.10, 1.60)},
	{name: "gpt-4.1", window: 1_047_576, output: 32_768, price: openAIPrice(2, 0.50, 8)},
	{name: "gpt-4o-mini", window: 128_000, output: 16_384, price: openAIPrice(0.15, 0.075, 0.60)},
	{name: "gpt-4o", window: 128_000, output: 16_384, price: openAIPrice(2.50, 1.25, 10)},
	{name: "gpt-4-turbo", window: 128_000, output: 4096},
	{name: "gpt-3.5-turbo", window: 16_385, output: 4096},
	{name: "o4-mini", window: 200_000, output: 100_000, price: openAIPrice(1.10, 0.275, 4.40)},
	{name: "o3-mini", window: 200_000, output: 100_000, price: openAIPrice(1.10, 0.55, 4.40)},
	{name: "o3", window: 200_000, output: 100_000, price: openAIPrice(2, 0.50, 8)},
	{name: "o1-mini", window: 128_000, output: 65_536, price: openAIPrice(1.10, 0.55, 4.40)},
	{name: "o1", window: 200_000, output: 100_000, price: openAIPrice(15, 7.50, 60)},

	// DeepSeek (V3.2 behind both names; the cache is written at the
	// input price).
	{name: "deepseek-chat", window: 128_000, output: 8192, price: openAIPrice(0.28, 0.028, 0.42)},
	{name: "deepseek-reasoner", window: 128_000, output: 64_000, price: openAIPrice(0.28, 0.028, 0.42)},
	{name: "deepseek", family: true, window: 128_000, output: 8192},

	// Mistral (-latest aliases move; windows only).
	{name: "codestral", family: true, window: 256_000, output: 8192},
	{name: "devstral", family: true, window: 128_000, output: 8192},
	{name: "mistral-large", family: true, window: 128_000, output: 8192},
	{name: "mistral-medium", family: true, window: 128_000, output: 8192},
	{name: "mistral-small", family: true, window: 128_000, output: 8192},

	// Qwen (DashScope's compatible mode; windows only).
	{name: "qwen3-coder-plus", family: true, window: 1_000_000, output: 65_536},
	{name: "qwen-turbo", family: true, window: 1_000_000, output: 8192},
	{name: "qwen-plus", family: true, window: 131_072, output: 8192},
	{name: "qwen-max", family: true, window: 32_768, output: 8192},
}

// ModelSpec overrides what the table says of a model (cordis.yml:
// agent.modelTable). Unset fields keep the table's value; a price given
// for a model the table has no price for fills the cache prices with the
// input price when they are not given (never less than the truth).
type ModelSpec struct {
	ContextWindow   int          `yaml:"contextWindow,omitempty" json:"contextWindow,omitempty" jsonschema:"minimum=1,description=Context window in tokens (input plus output)"`
	MaxOutput       int          `yaml:"maxOutput,omitempty" json:"maxOutput,omitempty" jsonschema:"minimum=1,description=Most output tokens one response may have"`
	Images          *bool        `yaml:"images,omitempty" json:"images,omitempty" jsonschema:"description=Whether the model takes image input (false: images become a text note)"`
	Thinking        ThinkingForm `yaml:"thinking,omitempty" json:"thinking,omitempty" jsonschema:"enum=budget,enum=adaptive,description=The thinking request the model accepts (Anthropic)"`
	MaxTokensField  string       `yaml:"maxTokensField,omitempty" json:"maxTokensField,omitempty" jsonschema:"enum=max_tokens,enum=max_completion_tokens,description=The Chat Completions field for the output limit"`
	ReasoningBack   *bool        `yaml:"reasoningBack,omitempty" json:"reasoningBack,omitempty" jsonschema:"description=Whether the model needs its reasoning_content back on tool-call turns (DeepSeek thinking mode)"`
	InputPrice      *float64     `yaml:"inputPrice,omitempty" json:"inputPrice,omitempty" jsonschema:"minimum=0,description=US dollars per million uncached input tokens"`
	OutputPrice     *float64     `yaml:"outputPrice,omitempty" json:"outputPrice,omitempty" jsonschema:"minimum=0,description=US dollars per million output tokens"`
	CacheWritePrice *float64     `yaml:"cacheWritePrice,omitempty" json:"cacheWritePrice,omitempty" jsonschema:"minimum=0,description=US dollars per million input tokens written to the prompt cache"`
	CacheReadPrice  *float64     `yaml:"cacheReadPrice,omitempty" json:"cacheReadPrice,omitempty" jsonschema:"minimum=0,description=US dollars per million input tokens read from the prompt cache"`
}

// ModelTable is the built-in table with the user's overrides. Keys of
// overrides are model names (matched like the table's, dated snapshots
// and provider prefixes included) or a prefix ending in "*". The nil
// table is the built-in one.
type ModelTable struct {
	overrides map[string]ModelSpec
}

// NewModelTable checks overrides and returns the table they make.
func NewModelTable(overrides map[string]ModelSpec) (*ModelTable, error) {
	for key, s := range overrides {
		if strings.TrimSuffix(key, "*") == "" {
			return nil, fmt.Errorf("modelTable: %q is not a model name or prefix", key)
		}
		if s.ContextWindow < 0 || s.MaxOutput < 0 {
			return nil, fmt.Errorf("modelTable.%s: contextWindow and maxOutput must be positive", key)
		}
		if s.ContextWindow > 0 && s.MaxOutput >= s.ContextWindow {
			return nil, fmt.Errorf("modelTable.%s: maxOutput %d must be less than contextWindow %d", key, s.MaxOutput, s.ContextWindow)
		}
		switch s.Thinking {
		case "", ThinkingBudget, ThinkingAdaptive:
		default:
			return nil, fmt.Errorf("modelTable.%s: thinking must be budget or adaptive, got %q", key, s.Thinking)
		}
		switch s.MaxTokensField {
		case "", "max_tokens", "max_completion_tokens":
		default:
			return nil, fmt.Errorf("modelTable.%s: maxTokensField must be max_tokens or max_completion_tokens, got %q", key, s.MaxTokensField)
		}
		for _, p := range []*float64{s.InputPrice, s.OutputPrice, s.CacheWritePrice, s.CacheReadPrice} {
			if p != nil && *p < 0 {
				return nil, fmt.Errorf("modelTable.%s: prices must not be negative", key)
			}
		}
	}
	return &ModelTable{overrides: overrides}, nil
}

// Lookup returns what the table says of model, overrides applied.
func (t *ModelTable) Lookup(model string) ModelInfo {
	name := canonicalModel(model)
	info := ModelInfo{ContextWindow: DefaultContextWindow, MaxOutput: DefaultMaxOutput, ModelCaps: capsOf(name)}
	if row, ok := findRow(name); ok {
		info.ContextWindow, info.MaxOutput, info.Price, info.Known = row.window, row.output, row.price, true
	}
	if t == nil {
		return info
	}
	if s, ok := t.override(name); ok {
		info = s.apply(info)
	}
	return info
}

// override finds the override of a canonical name: an exact key, else the
// longest matching prefix key.
func (t *ModelTable) override(name string) (ModelSpec, bool) {
	var best string
	var found ModelSpec
	ok := false
	for key, s := range t.overrides {
		if prefix, isPrefix := strings.CutSuffix(key, "*"); isPrefix {
			prefix = strings.ToLower(prefix)
			if strings.HasPrefix(name, prefix) && (!ok || len(prefix) > len(best)) {
				best, found, ok = prefix, s, true
			}
			continue
		}
		if canonicalModel(key) == name {
			return s, true
		}
	}
	return found, ok
}

func (s ModelSpec) apply(info ModelInfo) ModelInfo {
	info.Known = true
	if s.ContextWindow > 0 {
		info.ContextWindow = s.ContextWindow
	}
	if s.MaxOutput > 0 {
		info.MaxOutput = s.MaxOutput
	}
	if s.Images != nil {
		info.Images = *s.Images
	}
	if s.Thinking != "" {
		info.Thinking = s.Thinking
	}
	if s.MaxTokensField != "" {
		info.MaxTokensField = s.MaxTokensField
	}
	if s.ReasoningBack != nil {
		info.ReasoningBack = *s.ReasoningBack
	}
	if s.InputPrice == nil && s.OutputPrice == nil && s.CacheWritePrice == nil && s.CacheReadPrice == nil {
		return info
	}
	var p Price
	switch {
	case info.Price != nil:
		p = *info.Price
	case s.InputPrice == nil || s.OutputPrice == nil:
		// Half a price for a model the table cannot price: the cost
		// stays unknown rather than wrong.
		info.Price = nil
		return info
	default:
		p = Price{Input: *s.InputPrice, CacheWrite: *s.InputPrice, CacheRead: *s.InputPrice}
	}
	set := func(dst *float64, v *float64) {
		if v != nil {
			*dst = *v
		}
	}
	set(&p.Input, s.InputPrice)
	set(&p.Output, s.OutputPrice)
	set(&p.CacheWrite, s.CacheWritePrice)
	set(&p.CacheRead, s.CacheReadPrice)
	info.Price = &p
	return info
}

// findRow finds the row of a canonical name: the name itself or one of
// its dated snapshots, else the longest family it begins with.
func findRow(name string) (modelRow, bool) {
	var fam modelRow
	found := false
	for _, r := range builtinModels {
		switch {
		case !r.family && r.name == name:
			return r, true
		case r.family && strings.HasPrefix(name, r.name) && (!found || len(r.name) > len(fam.name)):
			fam, found = r, true
		}
	}
	return fam, found
}

// canonicalModel is the table's key for a model id: lower case, without a
// provider prefix ("anthropic/claude-…", Bedrock's
// "us.anthropic.claude-…-v1:0", Vertex's "claude-…@20250929") and without
// a snapshot date ("-20250929", "-2024-08-06", Mistral's "-2411") or
// "-latest".
func canonicalModel(model string) string {
	name := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	if i := strings.Index(name, "anthropic."); i >= 0 {
		name = name[i+len("anthropic."):]
		if j := strings.LastIndex(name, "-v"); j > 0 && strings.Contains(name[j:], ":") {
			name = name[:j]
		}
	}
	if i := strings.IndexByte(name, '@'); i > 0 {
		name = name[:i]
	}
	name = strings.TrimSuffix(name, "-latest")
	// -YYYY-MM-DD
	if n := len(name); n > 11 && name[n-11] == '-' && name[n-6] == '-' && name[n-3] == '-' &&
		isDigits(name[n-10:n-6]) && isDigits(name[n-5:n-3]) && isDigits(name[n-2:]) {
		return name[:n-11]
	}
	// -YYYYMMDD, -MMDD, -YYMM
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		if tail := name[i+1:]; (len(tail) == 8 || len(tail) == 4) && isDigits(tail) {
			return name[:i]
		}
	}
	return name
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

// models is the table the process uses: the built-in one until
// cmd/cordis sets the user's (SetModelTable), once, at start-up.
var models atomic.Pointer[ModelTable]

// SetModelTable makes t the table LookupModel and CapsOf read (nil: the
// built-in one). cmd/cordis calls it once, before any provider is built.
func SetModelTable(t *ModelTable) { models.Store(t) }

// Models returns the process's table (nil is the built-in one, a valid
// receiver).
func Models() *ModelTable { return models.Load() }

// LookupModel returns what the process's table says of model.
func LookupModel(model string) ModelInfo { return Models().Lookup(model) }
