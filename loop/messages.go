package loop

import (
	"errors"
	"strings"

	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/loop/tools"
)

// toolSpecs describes tools to the model.
func toolSpecs(ts []tools.Tool) []llm.ToolSpec {
	out := make([]llm.ToolSpec, len(ts))
	for i, t := range ts {
		out[i] = llm.ToolSpec{Name: t.Name(), Description: t.Description(), InputSchema: t.Schema()}
	}
	return out
}

// mergeAdjacent joins consecutive messages of one role: a torn log or a
// steering message can leave two user messages in a row, which the API
// refuses.
func mergeAdjacent(in []llm.Message) []llm.Message {
	out := make([]llm.Message, 0, len(in))
	for _, m := range in {
		if n := len(out); n > 0 && out[n-1].Role == m.Role {
			merged := append(append([]llm.Block(nil), out[n-1].Content...), m.Content...)
			out[n-1] = llm.Message{Role: m.Role, Content: merged}
			continue
		}
		out = append(out, m)
	}
	return out
}

// keepComplete drops empty text blocks.
func keepComplete(bs []llm.Block) []llm.Block {
	var out []llm.Block
	for _, b := range bs {
		if b.Type == llm.BlockText && b.Text == "" {
			continue
		}
		out = append(out, b)
	}
	return out
}

func withoutToolUse(bs []llm.Block) []llm.Block {
	var out []llm.Block
	for _, b := range bs {
		if b.Type != llm.BlockToolUse {
			out = append(out, b)
		}
	}
	return out
}

func explainModelError(err error) string {
	var e *llm.Error
	if !errors.As(err, &e) {
		return "The model request failed: " + err.Error()
	}
	switch e.Kind {
	case llm.ErrSpendLimit:
		return "The model API refused the request: your spend limit is reached. " + e.Message
	case llm.ErrAuth, llm.ErrMissingAPIKey:
		return "The model API rejected the credentials: " + e.Message
	case llm.ErrOverloaded:
		return "The model API is overloaded and retries did not help; try again shortly. (" + e.Message + ")"
	case llm.ErrRateLimit:
		return "The model API rate limit was hit and retries did not help; try again shortly. (" + e.Message + ")"
	case llm.ErrStream:
		return "The model's response broke off mid-stream: " + e.Message
	}
	return "The model request failed: " + e.Error()
}

func systemReminder(s string) string {
	return "<system-reminder>\n" + s + "\n</system-reminder>"
}

func summarize(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
