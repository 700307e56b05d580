package loop

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cordis-agent/cordis/acp"
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

// answerText is what a side call answered: its text blocks, joined and
// trimmed ("" when it wrote none).
func answerText(content []llm.Block) string {
	var b strings.Builder
	for _, bl := range content {
		if bl.Type == llm.BlockText {
			b.WriteString(bl.Text)
		}
	}
	return strings.TrimSpace(b.String())
}

// resultText is a tool result's text: its blocks' text, joined.
func resultText(content []llm.Block) string {
	var b strings.Builder
	for _, c := range content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// requestMessages is the history as one model request carries it:
// whitespace-only text left out (the API refuses it; the history keeps it
// for display), messages of one role in a row joined, images replaced by
// a note for a model that takes none, and the oldest images left out
// beyond the request limits. The history itself is not changed.
func requestMessages(history []llm.Message, caps llm.ModelCaps) []llm.Message {
	msgs := mergeAdjacent(withoutBlankText(history))
	if !caps.Images {
		msgs = replaceImages(msgs, func(llm.Block) bool { return false }, imageNotTaken)
	}
	return limitImages(msgs)
}

// withoutBlankText returns msgs without whitespace-only text blocks and
// without the messages that leaves empty, copying only what changes.
func withoutBlankText(msgs []llm.Message) []llm.Message {
	blank := func(b llm.Block) bool { return b.Type == llm.BlockText && strings.TrimSpace(b.Text) == "" }
	out := make([]llm.Message, 0, len(msgs))
	for _, m := range msgs {
		if !slices.ContainsFunc(m.Content, blank) {
			out = append(out, m)
			continue
		}
		content := slices.DeleteFunc(slices.Clone(m.Content), blank)
		if len(content) > 0 {
			out = append(out, llm.Message{Role: m.Role, Content: content})
		}
	}
	return out
}

// withoutCutThinking drops the thinking blocks no signature closed (a
// stream cut off mid-thought; the Anthropic API refuses them back), unless
// the message calls tools: an OpenAI-compatible model's reasoning is never
// signed, and DeepSeek needs it back on tool-call turns.
func withoutCutThinking(bs []llm.Block) []llm.Block {
	if slices.ContainsFunc(bs, func(b llm.Block) bool { return b.Type == llm.BlockToolUse }) {
		return bs
	}
	return slices.DeleteFunc(slices.Clone(bs), func(b llm.Block) bool {
		return b.Type == llm.BlockThinking && b.Signature == ""
	})
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

// explainModelError says what failed and what the user can do about it.
func explainModelError(err error) string {
	var e *llm.Error
	if !errors.As(err, &e) {
		return "The model request failed: " + err.Error()
	}
	switch e.Kind {
	case llm.ErrSpendLimit:
		return "The model API refused the request: your spend limit is reached. " + e.Message
	case llm.ErrAuth, llm.ErrMissingAPIKey:
		return "The model API rejected the credentials: " + e.Message + ". Check the API key cordis reads from the environment."
	case llm.ErrOverloaded:
		return "The model API is overloaded and retries did not help; try again shortly. (" + e.Message + ")"
	case llm.ErrRateLimit:
		return "The model API rate limit was hit and retries did not help; try again shortly. (" + e.Message + ")"
	case llm.ErrStream:
		return "The model's response broke off mid-stream: " + e.Message + ". Send a prompt to continue."
	case llm.ErrTimeout, llm.ErrTransport:
		return "The model API could not be reached: " + e.Message + ". Check the connection, then send a prompt to continue."
	case llm.ErrInvalid:
		if llm.IsContextLength(err) {
			return "The conversation does not fit the model's context window (" + e.Message + "), even after cordis compacted it once. " +
				"/compact with instructions to keep less, /clear to start a new conversation (the log keeps this one), or /model for a model with a larger window."
		}
		return "The model API refused the request: " + e.Message + ". Try again; if it keeps failing, /clear starts the conversation afresh."
	}
	status := ""
	if e.StatusCode != 0 && e.StatusCode != 200 {
		status = fmt.Sprintf(" (HTTP %d)", e.StatusCode)
	}
	return fmt.Sprintf("The model API failed with a %s error%s: %s. Try again shortly.", e.Kind, status, e.Message)
}

// modelFailure is the JSON-RPC error that answers session/prompt when the
// model request failed for good: the message says what failed and what to
// do; data carries the error kind (and HTTP status) for scripts.
func modelFailure(err error) *acp.Error {
	data := map[string]any{"kind": string(llm.ErrorKindOf(err))}
	var e *llm.Error
	if errors.As(err, &e) && e.StatusCode != 0 {
		data["status"] = e.StatusCode
	}
	msg := explainModelError(err) + " Your prompt stays in the conversation: send another (\"continue\") to retry it."
	code := int64(acp.CodeInternalError)
	if k := llm.ErrorKindOf(err); k == llm.ErrAuth || k == llm.ErrMissingAPIKey {
		code = acp.CodeAuthRequired
	}
	return &acp.Error{Code: code, Message: msg, Data: data}
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
