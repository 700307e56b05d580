package llm

import (
	"errors"
	"strings"
)

// IsContextLength reports whether err is the API saying the request does
// not fit the model's context window: Anthropic's 400 "prompt is too
// long", OpenAI's context_length_exceeded (its message names "maximum
// context length" or the input limit), and the same from the compatible
// servers (DeepSeek, vLLM, llama.cpp, Mistral). Compacting the
// conversation and sending the request again is the cure.
func IsContextLength(err error) bool {
	var e *Error
	if !errors.As(err, &e) || (e.Kind != ErrInvalid && e.StatusCode != 400 && e.StatusCode != 413) {
		return false
	}
	msg := strings.ToLower(e.Message)
	for _, s := range contextLengthPhrases {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// contextLengthPhrases are what the APIs say when a prompt is too long.
var contextLengthPhrases = []string{
	"prompt is too long",            // Anthropic
	"context_length_exceeded",       // OpenAI's code, when a server puts it in the text
	"maximum context length",        // OpenAI, DeepSeek, vLLM
	"context length",                // Mistral ("… maximum context length"), others
	"context window",                // "exceeds the context window"
	"exceeds the available context", // llama.cpp
	"input tokens exceed",           // OpenAI GPT-5: "Input tokens exceed the configured limit"
	"too many tokens",
}
