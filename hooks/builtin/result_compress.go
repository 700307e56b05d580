package builtin

import (
	"fmt"
	"strings"

	"github.com/cordis-agent/cordis/hooks"
)

// ResultCompressConfig configures result-compress.
type ResultCompressConfig struct {
	MaxTokens int `yaml:"maxTokens,omitempty" json:"maxTokens,omitempty" jsonschema:"minimum=0,description=Tool output longer than this many estimated tokens (4 bytes each) is cut to its head and tail; 0: result-compress is off"`
}

// bytesPerToken is the estimate result-compress works with.
const bytesPerToken = 4

// resultCompressHooks cut a long tool output (PostToolUse*) to its first
// and last halves of the budget, on line boundaries where one is near,
// with a marker in the middle saying how much was cut. The model, the
// editor and the session log all see the cut output.
func resultCompressHooks(cfg ResultCompressConfig) ([]registration, error) {
	if cfg.MaxTokens < 0 {
		return nil, fmt.Errorf("maxTokens must not be negative")
	}
	if cfg.MaxTokens == 0 {
		return nil, nil
	}
	budget := cfg.MaxTokens * bytesPerToken
	run := func(in *hooks.Input) (hooks.Decision, error) {
		if len(in.ToolOutput) <= budget {
			return hooks.Decision{}, nil
		}
		out := compress(in.ToolOutput, budget)
		return hooks.Decision{ReplaceResult: &out}, nil
	}
	return []registration{
		{event: hooks.PostToolUse, priority: 20, run: run},
		{event: hooks.PostToolUseFailure, priority: 20, run: run},
	}, nil
}

// compress keeps about budget bytes of s: its head and its tail.
func compress(s string, budget int) string {
	half := budget / 2
	head := truncateUTF8(s, half)
	if i := strings.LastIndexByte(head, '\n'); i >= half*3/4 {
		head = head[:i+1]
	}
	start := len(s) - half
	if i := strings.IndexByte(s[start:], '\n'); i >= 0 && i < half/4 {
		start += i + 1
	}
	for start < len(s) && !isRuneStart(s[start]) {
		start++
	}
	tail := s[start:]
	cut := len(s) - len(head) - len(tail)
	marker := fmt.Sprintf("[… result-compress cut %s bytes (about %s tokens) from the middle of this %s-byte output; the first %s and last %s bytes are shown …]\n",
		thousands(cut), thousands(cut/bytesPerToken), thousands(len(s)), thousands(len(head)), thousands(len(tail)))
	if head != "" && !strings.HasSuffix(head, "\n") {
		marker = "\n" + marker
	}
	return head + marker + tail
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
