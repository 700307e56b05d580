package llm_test

import (
	"errors"
	"math"
	"testing"

	"github.com/cordis-agent/cordis/llm"
)

// Names as the providers and their resellers spell them find the same row:
// dated snapshots, OpenRouter's and Bedrock's prefixes, Vertex's @date.
func TestModelTableFindsSnapshotsAndPrefixes(t *testing.T) {
	cases := []struct {
		model  string
		window int
		output int
		input  float64 // 0: no price known
	}{
		{"claude-sonnet-4-5", 200_000, 64_000, 3},
		{"claude-sonnet-4-5-20250929", 200_000, 64_000, 3},
		{"anthropic/claude-sonnet-4-5", 200_000, 64_000, 3},
		{"us.anthropic.claude-sonnet-4-5-20250929-v1:0", 200_000, 64_000, 3},
		{"claude-sonnet-4-5@20250929", 200_000, 64_000, 3},
		{"claude-opus-4-6", 1_000_000, 128_000, 5},
		{"claude-sonnet-4-6", 1_000_000, 128_000, 3},
		{"claude-opus-4-1-20250805", 200_000, 32_000, 15},
		{"claude-opus-4-20250514", 200_000, 32_000, 15},
		{"claude-haiku-4-5-20251001", 200_000, 64_000, 1},
		{"claude-3-5-haiku-latest", 200_000, 8192, 0.8},
		{"claude-some-future-model", 200_000, 32_000, 0}, // the family: no price
		{"gpt-4o-2024-08-06", 128_000, 16_384, 2.5},
		{"gpt-4o-mini", 128_000, 16_384, 0.15},
		{"openai/gpt-4.1", 1_047_576, 32_768, 2},
		{"gpt-5-mini-2025-08-07", 400_000, 128_000, 0.25},
		{"gpt-5.1-codex", 400_000, 128_000, 0}, // the gpt-5 family
		{"o3-mini", 200_000, 100_000, 1.10},
		{"deepseek-chat", 128_000, 8192, 0.28},
		{"deepseek-reasoner", 128_000, 64_000, 0.28},
		{"mistral-large-2411", 128_000, 8192, 0},
		{"codestral-latest", 256_000, 8192, 0},
		{"qwen-max-2025-01-25", 32_768, 8192, 0},
	}
	for _, c := range cases {
		info := llm.LookupModel(c.model)
		if !info.Known || info.ContextWindow != c.window || info.MaxOutput != c.output {
			t.Errorf("%s: known %v, window %d, output %d; want %d, %d", c.model, info.Known, info.ContextWindow, info.MaxOutput, c.window, c.output)
		}
		switch {
		case c.input == 0 && info.Price != nil:
			t.Errorf("%s: a price (%+v) for a model whose price is not known", c.model, *info.Price)
		case c.input != 0 && (info.Price == nil || info.Price.Input != c.input):
			t.Errorf("%s: price %+v, want input %v", c.model, info.Price, c.input)
		}
	}
}

// A model the table does not know gets the safe defaults and no price; a
// name that only begins like a known one is not taken for it.
func TestModelTableUnknownModels(t *testing.T) {
	for _, m := range []string{"my-local-model", "llama-3.1-8b-instruct", "gpt-4o-audio-preview-x", "o3x"} {
		info := llm.LookupModel(m)
		if m == "gpt-4o-audio-preview-x" {
			// Not gpt-4o: a snapshot suffix is a date, nothing else.
			if info.Price != nil && info.Price.Input == 2.5 {
				t.Errorf("%s priced as gpt-4o", m)
			}
			continue
		}
		if info.Known || info.ContextWindow != llm.DefaultContextWindow || info.MaxOutput != llm.DefaultMaxOutput || info.Price != nil {
			t.Errorf("%s: %+v, want the defaults", m, info)
		}
	}
}

// Anthropic's cache prices follow from the input price: writes 1.25x,
// reads 0.1x; OpenAI's cache costs nothing to write.
func TestModelTablePrices(t *testing.T) {
	p := llm.LookupModel("claude-sonnet-4-5").Price
	got := p.Cost(llm.Usage{InputTokens: 1_000_000, CacheCreationInputTokens: 1_000_000, CacheReadInputTokens: 1_000_000, OutputTokens: 1_000_000})
	if want := 3 + 3.75 + 0.30 + 15.0; math.Abs(got-want) > 1e-9 {
		t.Errorf("Sonnet 4.5 cost = %v, want %v", got, want)
	}
	o := llm.LookupModel("gpt-4o").Price
	if o.CacheWrite != o.Input || o.CacheRead != 1.25 {
		t.Errorf("gpt-4o cache prices %+v", *o)
	}
}

// Overrides change what they name and keep the rest; an exact name beats a
// prefix, a longer prefix a shorter one; half a price for a model without
// one leaves the cost unknown; a full one fills the cache prices.
func TestModelTableOverrides(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	no := false
	tbl, err := llm.NewModelTable(map[string]llm.ModelSpec{
		"claude-sonnet-4-5": {ContextWindow: 100_000},
		"local-*":           {ContextWindow: 32_768, MaxOutput: 4096, Images: &no},
		"local-big-*":       {ContextWindow: 131_072},
		"priced":            {InputPrice: f(1), OutputPrice: f(2)},
		"half-priced":       {InputPrice: f(1)},
		"gpt-4o":            {CacheReadPrice: f(0.5)},
		"gpt-5-mini":        {MaxTokensField: "max_tokens"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := tbl.Lookup("claude-sonnet-4-5-20250929"); got.ContextWindow != 100_000 || got.MaxOutput != 64_000 || got.Price == nil || got.Price.Input != 3 {
		t.Errorf("sonnet override: %+v", got)
	}
	if got := tbl.Lookup("local-small"); got.ContextWindow != 32_768 || got.MaxOutput != 4096 || got.Images {
		t.Errorf("prefix override: %+v", got)
	}
	if got := tbl.Lookup("local-big-one"); got.ContextWindow != 131_072 || got.MaxOutput != llm.DefaultMaxOutput {
		t.Errorf("longest prefix: %+v", got)
	}
	if got := tbl.Lookup("priced"); got.Price == nil || *got.Price != (llm.Price{Input: 1, Output: 2, CacheWrite: 1, CacheRead: 1}) {
		t.Errorf("a new price: %+v", got.Price)
	}
	if got := tbl.Lookup("half-priced"); got.Price != nil {
		t.Errorf("half a price made a price: %+v", *got.Price)
	}
	if got := tbl.Lookup("gpt-4o"); got.Price.CacheRead != 0.5 || got.Price.Input != 2.5 {
		t.Errorf("one price changed: %+v", *got.Price)
	}
	if got := tbl.Lookup("gpt-5-mini"); got.MaxTokensField != "max_tokens" {
		t.Errorf("caps override: %+v", got)
	}
	// The built-in table is untouched.
	if got := llm.LookupModel("claude-sonnet-4-5"); got.ContextWindow != 200_000 {
		t.Errorf("built-in changed: %+v", got)
	}
	for _, bad := range []map[string]llm.ModelSpec{
		{"m": {ContextWindow: -1}},
		{"m": {ContextWindow: 1000, MaxOutput: 1000}},
		{"m": {Thinking: "always"}},
		{"m": {MaxTokensField: "max_output_tokens"}},
		{"m": {InputPrice: f(-1)}},
		{"*": {ContextWindow: 1000}},
	} {
		if _, err := llm.NewModelTable(bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// SetModelTable reaches CapsOf, which the providers read.
func TestSetModelTableReachesCapsOf(t *testing.T) {
	yes := true
	tbl, err := llm.NewModelTable(map[string]llm.ModelSpec{"deepseek-chat": {Images: &yes}})
	if err != nil {
		t.Fatal(err)
	}
	if llm.CapsOf("deepseek-chat").Images {
		t.Fatal("deepseek-chat takes images in the built-in table")
	}
	llm.SetModelTable(tbl)
	defer llm.SetModelTable(nil)
	if !llm.CapsOf("deepseek-chat").Images {
		t.Error("the override did not reach CapsOf")
	}
}

func TestIsContextLength(t *testing.T) {
	yes := []error{
		&llm.Error{Kind: llm.ErrInvalid, StatusCode: 400, Message: "prompt is too long: 208310 tokens > 200000 maximum"},
		&llm.Error{Kind: llm.ErrInvalid, StatusCode: 400, Message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens."},
		&llm.Error{Kind: llm.ErrInvalid, StatusCode: 400, Message: "Input tokens exceed the configured limit of 272000 tokens. (context_length_exceeded)"},
		&llm.Error{Kind: llm.ErrInvalid, StatusCode: 400, Message: "Prompt contains 140000 tokens, too large for model with 131072 maximum context length"},
	}
	for _, err := range yes {
		if !llm.IsContextLength(err) {
			t.Errorf("not a context-length error: %v", err)
		}
	}
	no := []error{
		&llm.Error{Kind: llm.ErrInvalid, StatusCode: 400, Message: "messages.1.content.0: text content blocks must contain non-whitespace text"},
		&llm.Error{Kind: llm.ErrOverloaded, StatusCode: 529, Message: "Overloaded"},
		errors.New("prompt is too long"), // not from a provider
	}
	for _, err := range no {
		if llm.IsContextLength(err) {
			t.Errorf("taken for a context-length error: %v", err)
		}
	}
}
