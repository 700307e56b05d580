package anthropic

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/llm/internal/httpstream"
	"github.com/cordis-agent/cordis/llm/internal/jsonrepair"
	"github.com/cordis-agent/cordis/llm/sse"
)

// RepairJSON completes JSON cut off mid-value (an open string is closed, an
// unfinished member dropped, open objects and arrays closed). Valid input
// comes back compacted. The decoder uses it for tool input that does not
// parse at content_block_stop; see the package documentation for how the
// result is surfaced.
func RepairJSON(s string) (json.RawMessage, error) { return jsonrepair.Repair(s) }

// DecodeStream reads a Messages API SSE body and assembles the response,
// calling sink (which may be nil) for text, thinking and tool_use-start
// deltas in wire order. It stops at message_stop.
//
// On failure it returns the partial response (nil if nothing was decoded)
// and an *llm.Error: an "error" event becomes Kind by error type with
// StatusCode 200; a body that ends before message_stop, a read error, or a
// malformed event is ErrStream. Read errors are wrapped, so a caller can
// recognise its own context cancellation with errors.Is.
func DecodeStream(r io.Reader, sink func(llm.Delta)) (*llm.Response, error) {
	d := newDecoder(sink)
	events := sse.NewReader(r)
	for {
		ev, err := events.Next()
		if err == io.EOF {
			return d.partial(), &llm.Error{Kind: llm.ErrStream, Message: "stream ended before message_stop"}
		}
		if err != nil {
			return d.partial(), &llm.Error{Kind: llm.ErrStream, Message: "reading stream: " + err.Error(), Err: err}
		}
		done, err := d.handle(ev.Name, ev.Data)
		if err != nil {
			return d.partial(), err
		}
		if done {
			return d.result(), nil
		}
	}
}

type wireUsage struct {
	InputTokens              *int `json:"input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
	ServerToolUse            *struct {
		WebSearchRequests *int `json:"web_search_requests"`
	} `json:"server_tool_use"`
}

type wireError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// wireEvent is the union of all stream event payloads.
type wireEvent struct {
	Type    string `json:"type"`
	Message *struct {
		ID    string    `json:"id"`
		Model string    `json:"model"`
		Usage wireUsage `json:"usage"`
	} `json:"message"`
	Index        *int              `json:"index"`
	ContentBlock *wireContentBlock `json:"content_block"`
	Delta        *struct {
		Type        string          `json:"type"`
		Text        string          `json:"text"`
		PartialJSON string          `json:"partial_json"`
		Thinking    string          `json:"thinking"`
		Signature   string          `json:"signature"`
		StopReason  string          `json:"stop_reason"`
		Citation    json.RawMessage `json:"citation"`
	} `json:"delta"`
	Usage *wireUsage `json:"usage"`
	Error *wireError `json:"error"`
}

// wireContentBlock is a content_block_start's block; raw keeps it as
// received, for the server tool blocks that go back unchanged.
type wireContentBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Citations json.RawMessage `json:"citations"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
	ToolUseID string          `json:"tool_use_id"`
	raw       json.RawMessage
}

func (b *wireContentBlock) UnmarshalJSON(data []byte) error {
	type plain wireContentBlock
	if err := json.Unmarshal(data, (*plain)(b)); err != nil {
		return err
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, data); err != nil {
		return err
	}
	b.raw = compact.Bytes()
	return nil
}

// isServerToolResult reports whether a block type is a server tool's
// result (web_search_tool_result, web_fetch_tool_result, ...), which the
// API wants back as it sent it.
func isServerToolResult(typ string) bool {
	return typ != "tool_result" && strings.HasSuffix(typ, "_tool_result")
}

// blockState is one content block being assembled.
type blockState struct {
	index int
	block llm.Block
	// supported is false for block types llm.Block cannot carry (any
	// that is neither a known type nor a server tool's call or result);
	// their deltas are absorbed and the block is left out of the response.
	supported bool
	stopped   bool
	// toolJSON accumulates input_json_delta fragments; startInput is the
	// input given in content_block_start, used only if no fragment arrives.
	toolJSON   strings.Builder
	startInput json.RawMessage
	// text accumulates a text or thinking block (finish sets Text or
	// Thinking from it): appending to the string would copy the whole
	// block on every delta, quadratic in the length of the answer.
	text strings.Builder
	// citations are a text block's citations, from its start and its
	// citations_delta events, in order.
	citations []json.RawMessage
}

type decoder struct {
	sink    func(llm.Delta)
	resp    llm.Response
	started bool
	blocks  []*blockState // in start order
	byIndex map[int]*blockState
}

func newDecoder(sink func(llm.Delta)) *decoder {
	if sink == nil {
		sink = func(llm.Delta) {}
	}
	return &decoder{sink: sink, byIndex: map[int]*blockState{}}
}

func streamError(format string, args ...any) *llm.Error {
	return &llm.Error{Kind: llm.ErrStream, Message: fmt.Sprintf(format, args...)}
}

// handle applies one event and reports whether the message is complete.
func (d *decoder) handle(name string, data []byte) (done bool, err error) {
	var ev wireEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		if name == "error" {
			// Plain text from a proxy in front of the API: still the
			// server failing the step (as the SDK reads it), not a
			// malformed stream.
			return false, &llm.Error{Kind: llm.ErrServer, StatusCode: 200, Message: httpstream.BodyText(data)}
		}
		if !knownEvent(name) {
			return false, nil // tolerate payloads of events we do not use
		}
		return false, &llm.Error{Kind: llm.ErrStream, Message: fmt.Sprintf("malformed %s event: %v", name, err), Err: err}
	}
	typ := ev.Type
	if typ == "" {
		typ = name
	}
	switch typ {
	case "message_start":
		if ev.Message == nil {
			return false, streamError("message_start without message")
		}
		d.started = true
		d.resp.ID = ev.Message.ID
		d.resp.Model = ev.Message.Model
		applyUsage(&d.resp.Usage, &ev.Message.Usage)
	case "content_block_start":
		return false, d.startBlock(&ev)
	case "content_block_delta":
		return false, d.applyDelta(&ev)
	case "content_block_stop":
		b, err := d.block(typ, ev.Index)
		if err != nil {
			return false, err
		}
		d.finish(b)
	case "message_delta":
		if ev.Delta != nil && ev.Delta.StopReason != "" {
			d.resp.StopReason = llm.StopReason(ev.Delta.StopReason)
		}
		if ev.Usage != nil {
			applyUsage(&d.resp.Usage, ev.Usage)
		}
	case "message_stop":
		return true, nil
	case "error":
		e := wireError{Type: "api_error", Message: "error event without details"}
		if ev.Error != nil {
			e = *ev.Error
		}
		kind := kindForErrorType(e.Type)
		if kind == "" {
			kind = llm.ErrServer
		}
		return false, &llm.Error{Kind: kind, StatusCode: 200, Message: e.Message}
	default:
		// ping, and event types added after this code was written.
	}
	return false, nil
}

func knownEvent(name string) bool {
	switch name {
	case "message_start", "content_block_start", "content_block_delta", "content_block_stop",
		"message_delta", "message_stop", "error":
		return true
	}
	return false
}

// applyUsage overwrites the counters present in u: message_delta usage is
// cumulative, so the latest value wins.
func applyUsage(dst *llm.Usage, u *wireUsage) {
	if u.InputTokens != nil {
		dst.InputTokens = *u.InputTokens
	}
	if u.OutputTokens != nil {
		dst.OutputTokens = *u.OutputTokens
	}
	if u.CacheCreationInputTokens != nil {
		dst.CacheCreationInputTokens = *u.CacheCreationInputTokens
	}
	if u.CacheReadInputTokens != nil {
		dst.CacheReadInputTokens = *u.CacheReadInputTokens
	}
	if u.ServerToolUse != nil && u.ServerToolUse.WebSearchRequests != nil {
		dst.WebSearchRequests = *u.ServerToolUse.WebSearchRequests
	}
}

func (d *decoder) startBlock(ev *wireEvent) error {
	if ev.Index == nil || ev.ContentBlock == nil {
		return streamError("content_block_start without index or content_block")
	}
	idx := *ev.Index
	if _, dup := d.byIndex[idx]; dup {
		return streamError("content_block_start for index %d twice", idx)
	}
	cb := ev.ContentBlock
	b := &blockState{index: idx, supported: true}
	switch cb.Type {
	case "text":
		b.block = llm.Block{Type: llm.BlockText}
		var cited []json.RawMessage
		if json.Unmarshal(cb.Citations, &cited) == nil {
			b.citations = cited
		}
		b.text.WriteString(cb.Text)
		if cb.Text != "" {
			d.sink(llm.Delta{Kind: llm.DeltaText, Index: idx, Text: cb.Text})
		}
	case "thinking":
		b.block = llm.Block{Type: llm.BlockThinking, Signature: cb.Signature}
		b.text.WriteString(cb.Thinking)
		if cb.Thinking != "" {
			d.sink(llm.Delta{Kind: llm.DeltaThinking, Index: idx, Text: cb.Thinking})
		}
	case "redacted_thinking":
		b.block = llm.Block{Type: llm.BlockRedactedThinking, Data: cb.Data}
	case "tool_use":
		b.block = llm.Block{Type: llm.BlockToolUse, ID: cb.ID, Name: cb.Name}
		b.startInput = cb.Input
		d.sink(llm.Delta{Kind: llm.DeltaToolUse, Index: idx, ID: cb.ID, Name: cb.Name})
	case "server_tool_use":
		// Run by the API: no DeltaToolUse, the loop has nothing to run.
		b.block = llm.Block{Type: llm.BlockServerToolUse, ID: cb.ID, Name: cb.Name, Raw: cb.raw}
		b.startInput = cb.Input
	default:
		if isServerToolResult(cb.Type) {
			b.block = llm.Block{Type: llm.BlockServerToolResult, ToolUseID: cb.ToolUseID, Name: cb.Type, Raw: cb.raw}
		} else {
			b.supported = false
		}
	}
	d.byIndex[idx] = b
	d.blocks = append(d.blocks, b)
	return nil
}

func (d *decoder) block(event string, index *int) (*blockState, error) {
	if index == nil {
		return nil, streamError("%s without index", event)
	}
	b, ok := d.byIndex[*index]
	if !ok {
		return nil, streamError("%s for unknown index %d", event, *index)
	}
	if b.stopped {
		return nil, streamError("%s for index %d after content_block_stop", event, *index)
	}
	return b, nil
}

func (d *decoder) applyDelta(ev *wireEvent) error {
	b, err := d.block("content_block_delta", ev.Index)
	if err != nil {
		return err
	}
	if ev.Delta == nil {
		return streamError("content_block_delta without delta")
	}
	if !b.supported {
		return nil
	}
	delta := ev.Delta
	// A delta that does not fit the block's type is ignored, like unknown
	// delta types (citations_delta): it carries nothing we keep.
	switch {
	case delta.Type == "text_delta" && b.block.Type == llm.BlockText:
		b.text.WriteString(delta.Text)
		if delta.Text != "" {
			d.sink(llm.Delta{Kind: llm.DeltaText, Index: b.index, Text: delta.Text})
		}
	case delta.Type == "input_json_delta" && (b.block.Type == llm.BlockToolUse || b.block.Type == llm.BlockServerToolUse):
		b.toolJSON.WriteString(delta.PartialJSON)
	case delta.Type == "citations_delta" && b.block.Type == llm.BlockText && len(delta.Citation) > 0:
		b.citations = append(b.citations, delta.Citation)
	case delta.Type == "thinking_delta" && b.block.Type == llm.BlockThinking:
		b.text.WriteString(delta.Thinking)
		if delta.Thinking != "" {
			d.sink(llm.Delta{Kind: llm.DeltaThinking, Index: b.index, Text: delta.Thinking})
		}
	case delta.Type == "signature_delta" && b.block.Type == llm.BlockThinking:
		// Each signature_delta carries the whole signature: the last one
		// stands, as in the official SDKs' accumulators.
		b.block.Signature = delta.Signature
	}
	return nil
}

// finish closes a block; for tool_use it parses the accumulated input.
func (d *decoder) finish(b *blockState) {
	b.stopped = true
	switch b.block.Type {
	case llm.BlockText:
		b.block.Text = b.text.String()
		if len(b.citations) > 0 {
			b.block.Citations, _ = json.Marshal(b.citations)
		}
	case llm.BlockThinking:
		b.block.Thinking = b.text.String()
	case llm.BlockToolUse:
		b.block.Input, b.block.Text = jsonrepair.ToolInput(b.rawInput())
	case llm.BlockServerToolUse:
		b.block.Input, b.block.Text = jsonrepair.ToolInput(b.rawInput())
		if b.block.Input == nil {
			b.block.Input = emptyObject
		}
		// The block goes back as it came, with the input it streamed.
		b.block.Raw = withMember(b.block.Raw, "input", b.block.Input)
	}
}

// withMember returns the JSON object obj with member key set to val, its
// other members unchanged and in their order (val is appended when key is
// absent). An obj that is not an object is returned as it is.
func withMember(obj json.RawMessage, key string, val json.RawMessage) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return obj
	}
	var out bytes.Buffer
	out.WriteByte('{')
	member := func(name string, v json.RawMessage) {
		if out.Len() > 1 {
			out.WriteByte(',')
		}
		k, _ := json.Marshal(name)
		out.Write(k)
		out.WriteByte(':')
		out.Write(v)
	}
	found := false
	for dec.More() {
		t, err := dec.Token()
		name, ok := t.(string)
		var v json.RawMessage
		if err != nil || !ok || dec.Decode(&v) != nil {
			return obj
		}
		if name == key {
			v, found = val, true
		}
		member(name, v)
	}
	if !found {
		member(key, val)
	}
	out.WriteByte('}')
	return out.Bytes()
}

// rawInput is a tool_use block's input as streamed.
func (b *blockState) rawInput() string {
	raw := b.toolJSON.String()
	if strings.TrimSpace(raw) == "" {
		raw = string(b.startInput) // no fragments: the input given at the start, usually {}
	}
	return raw
}

// result returns the assembled response; blocks still open (the stream was
// cut) are finished as they stand.
func (d *decoder) result() *llm.Response {
	resp := d.resp
	ordered := slices.Clone(d.blocks)
	slices.SortStableFunc(ordered, func(a, b *blockState) int { return cmp.Compare(a.index, b.index) })
	resp.Content = make([]llm.Block, 0, len(ordered))
	for _, b := range ordered {
		if !b.stopped {
			d.finish(b)
		}
		if b.supported {
			resp.Content = append(resp.Content, b.block)
		}
	}
	// The output limit stops the block being streamed, which is the last
	// one started. A tool call cut off there is never runnable, whatever its
	// fragments parse or repair to (a cut-off Write would write a cut-off
	// file): Input stays nil and Text keeps the raw fragments.
	if n := len(ordered); resp.StopReason == llm.StopMaxTokens && n > 0 {
		if last := ordered[n-1]; last.supported && last.block.Type == llm.BlockToolUse {
			cut := &resp.Content[len(resp.Content)-1]
			cut.Input, cut.Text = nil, last.rawInput()
		}
	}
	return &resp
}

// partial is result for a failed stream, or nil when nothing arrived.
func (d *decoder) partial() *llm.Response {
	if !d.started && len(d.blocks) == 0 {
		return nil
	}
	return d.result()
}

// kindForErrorType maps an API error type to a kind, or "" if unknown.
func kindForErrorType(t string) llm.ErrorKind {
	switch t {
	case "invalid_request_error", "request_too_large":
		return llm.ErrInvalid
	case "authentication_error":
		return llm.ErrAuth
	case "permission_error":
		return llm.ErrPermission
	case "not_found_error":
		return llm.ErrNotFound
	case "rate_limit_error":
		return llm.ErrRateLimit
	case "billing_error":
		return llm.ErrSpendLimit
	case "timeout_error":
		return llm.ErrTimeout
	case "overloaded_error":
		return llm.ErrOverloaded
	case "api_error":
		return llm.ErrServer
	}
	return ""
}
