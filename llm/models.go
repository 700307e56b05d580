package llm

import (
	"strconv"
	"strings"
)

// ThinkingForm is the shape of the thinking request a model accepts.
type ThinkingForm string

const (
	// ThinkingBudget is {"type":"enabled","budget_tokens":N}: Claude
	// models before 4.6.
	ThinkingBudget ThinkingForm = "budget"
	// ThinkingAdaptive is {"type":"adaptive"}: the newest Claude models,
	// some of which reject the budget form.
	ThinkingAdaptive ThinkingForm = "adaptive"
)

// ModelCaps is what a provider must know about a model to build a request
// it accepts. It is part of the model table (LookupModel); unknown models
// get the most permissive answer.
type ModelCaps struct {
	// Images is false for models that reject image input; their requests
	// carry a text note instead.
	Images bool
	// Thinking is the thinking request form (Anthropic).
	Thinking ThinkingForm
	// MaxTokensField is the Chat Completions field for the output limit:
	// OpenAI's o-series and GPT-5 reject max_tokens.
	MaxTokensField string
	// ReasoningBack is set for models whose thinking mode requires the
	// reasoning_content of tool-call turns in later requests (DeepSeek
	// V3.1 and later); the legacy deepseek-reasoner rejects it.
	ReasoningBack bool
}

// CapsOf returns the capabilities of model in the process's model table
// (overrides included). A provider prefix ("anthropic/claude-…") and a
// snapshot date are ignored.
func CapsOf(model string) ModelCaps { return LookupModel(model).ModelCaps }

// capsOf derives the capabilities of a canonical model name from its
// family.
func capsOf(name string) ModelCaps {
	caps := ModelCaps{Images: true, Thinking: ThinkingBudget, MaxTokensField: "max_tokens"}
	switch {
	case strings.HasPrefix(name, "claude-"):
		if adaptiveClaude(name) {
			caps.Thinking = ThinkingAdaptive
		}
	case name == "deepseek-reasoner":
		caps.Images = false
	case strings.HasPrefix(name, "deepseek"):
		caps.Images, caps.ReasoningBack = false, true
	case isOSeries(name) || strings.HasPrefix(name, "gpt-5"):
		caps.MaxTokensField = "max_completion_tokens"
		caps.Images = name != "o1-mini" && name != "o3-mini"
	case strings.HasPrefix(name, "gpt-3.5"):
		caps.Images = false
	}
	return caps
}

// isOSeries reports OpenAI reasoning models: o1, o3-mini, o4-mini-2025….
func isOSeries(name string) bool {
	return len(name) >= 2 && name[0] == 'o' && name[1] >= '1' && name[1] <= '9' &&
		(len(name) == 2 || name[2] == '-')
}

// adaptiveClaude reports the Claude models that take adaptive thinking:
// Opus and Sonnet from 4.6 on (Opus 4.7 accepts nothing else, and 4.6
// deprecates the budget form), and the families named after 4.x.
func adaptiveClaude(name string) bool {
	parts := strings.Split(strings.TrimPrefix(name, "claude-"), "-")
	switch parts[0] {
	case "opus", "sonnet":
	case "mythos", "fable": // families newer than every 4.x
		return true
	default: // haiku, claude-3-…, names cordis does not know
		return false
	}
	if len(parts) < 2 {
		return false
	}
	major, err := strconv.Atoi(parts[1])
	if err != nil {
		return false
	}
	if major != 4 {
		return major > 4
	}
	if len(parts) < 3 || len(parts[2]) > 2 { // claude-opus-4-20250514
		return false
	}
	minor, err := strconv.Atoi(parts[2])
	return err == nil && minor >= 6
}
