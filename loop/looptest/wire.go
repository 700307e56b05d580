package looptest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// Block is one content block of a scripted answer; build it with Text,
// Thinking or ToolUse.
type Block struct {
	Type  string // "text", "thinking" or "tool_use"
	Text  string // the text or the thinking
	ID    string // tool_use only
	Name  string // tool_use only
	Input map[string]any
}

// Text is a text block.
func Text(s string) Block { return Block{Type: "text", Text: s} }

// Thinking is a thinking block (signed "sig-1").
func Thinking(s string) Block { return Block{Type: "thinking", Text: s} }

// ToolUse is a tool call.
func ToolUse(id, name string, input map[string]any) Block {
	return Block{Type: "tool_use", ID: id, Name: name, Input: input}
}

// Reply is a scripted answer. Zero fields take the defaults of every
// scripted answer: model claude-test, 100 input tokens, no cache reads.
// Output tokens are always 20.
type Reply struct {
	Stop            string // stop_reason: "end_turn", "tool_use", "max_tokens", ...
	Blocks          []Block
	Model           string
	InputTokens     int
	CacheReadTokens int
}

// StreamBlocks answers with a message made of blocks, ended by stop.
func StreamBlocks(stop string, blocks ...Block) http.HandlerFunc {
	return Reply{Stop: stop, Blocks: blocks}.Handler()
}

// ReplyText answers with one text block and ends the turn.
func ReplyText(s string) http.HandlerFunc { return StreamBlocks("end_turn", Text(s)) }

// Handler streams r. Text and thinking arrive in three deltas and tool
// input in two, so that the client's reassembly is exercised.
func (r Reply) Handler() http.HandlerFunc {
	model := r.Model
	if model == "" {
		model = "claude-test"
	}
	usage := map[string]any{"input_tokens": r.InputTokens, "output_tokens": 1}
	if r.InputTokens == 0 {
		usage["input_tokens"] = 100
	}
	if r.CacheReadTokens != 0 {
		usage["cache_read_input_tokens"] = r.CacheReadTokens
	}
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		SSEEvent(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
			"id": "msg_1", "type": "message", "role": "assistant", "model": model, "content": []any{}, "usage": usage}})
		for i, b := range r.Blocks {
			start := func(block map[string]any) {
				SSEEvent(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": block})
			}
			delta := func(d map[string]any) {
				SSEEvent(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d})
			}
			switch b.Type {
			case "text":
				start(map[string]any{"type": "text", "text": ""})
				for _, part := range splitN(b.Text, 3) {
					delta(map[string]any{"type": "text_delta", "text": part})
				}
			case "thinking":
				start(map[string]any{"type": "thinking", "thinking": ""})
				for _, part := range splitN(b.Text, 3) {
					delta(map[string]any{"type": "thinking_delta", "thinking": part})
				}
				delta(map[string]any{"type": "signature_delta", "signature": "sig-1"})
			case "tool_use":
				start(map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}})
				input, _ := json.Marshal(b.Input)
				for _, part := range splitN(string(input), 2) {
					delta(map[string]any{"type": "input_json_delta", "partial_json": part})
				}
			default:
				panic("looptest: unknown block type " + b.Type)
			}
			SSEEvent(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
		}
		SSEEvent(w, "message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": r.Stop}, "usage": map[string]any{"output_tokens": 20}})
		SSEEvent(w, "message_stop", map[string]any{"type": "message_stop"})
	}
}

// SSEEvent writes one server-sent event with data as JSON, for handlers
// that script the wire by hand (partial answers, errors mid-stream).
func SSEEvent(w io.Writer, name string, data any) {
	b, _ := json.Marshal(data)
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
}

// splitN cuts s into at most n pieces of about equal length.
func splitN(s string, n int) []string {
	if len(s) < n {
		return []string{s}
	}
	var out []string
	size := (len(s) + n - 1) / n
	for len(s) > size {
		out = append(out, s[:size])
		s = s[size:]
	}
	return append(out, s)
}
