package openai

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"

	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/llm/internal/httpstream"
	"github.com/cordis-agent/cordis/llm/internal/jsonrepair"
	"github.com/cordis-agent/cordis/llm/sse"
)

// chunk is one streamed chat.completion.chunk (or an error object).
type chunk struct {
	ID      string `json:"id"`
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content flexText `json:"content"`
			// ReasoningContent (DeepSeek, vLLM, SGLang, Qwen) and
			// Reasoning (OpenRouter, newer vLLM) carry the same text when
			// a server sends both; ReasoningDetails (OpenRouter) repeats
			// it in parts and is read only when neither is there.
			ReasoningContent *string           `json:"reasoning_content"`
			Reasoning        *string           `json:"reasoning"`
			ReasoningDetails []reasoningDetail `json:"reasoning_details"`
			Refusal          *string           `json:"refusal"`
			ToolCalls        []toolCallDelta   `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *wireUsage `json:"usage"`
	// XGroq is Groq's extension; its usage is the step's when the chunk
	// has no usage of its own.
	XGroq *struct {
		Usage *wireUsage `json:"usage"`
	} `json:"x_groq"`
	Error *apiError `json:"error"`
}

type wireUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	PromptCacheHitTokens *int `json:"prompt_cache_hit_tokens"` // DeepSeek
}

// toolCallDelta is one fragment of a tool call. Index is missing on some
// servers (Gemini's compatible endpoint, older Ollama and vLLM), which
// send each call whole.
type toolCallDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
	// ExtraContent is Gemini's extension (the call's thought signature),
	// kept to be sent back.
	ExtraContent json.RawMessage `json:"extra_content"`
}

// reasoningDetail is one part of OpenRouter's reasoning_details.
type reasoningDetail struct {
	Type    string `json:"type"`
	Text    string `json:"text"`
	Summary string `json:"summary"`
}

// apiError is the "error" object of HTTP error bodies and error chunks.
// Code is a string or a number depending on the server.
type apiError struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
}

func (e *apiError) code() string {
	var s string
	if json.Unmarshal(e.Code, &s) == nil {
		return s
	}
	return string(e.Code)
}

// blockState is a block being assembled; args accumulates tool call
// argument fragments, text a text or thinking block (result sets Text or
// Thinking from it: appending to the string would copy the whole block on
// every delta, quadratic in the length of the answer).
type blockState struct {
	block llm.Block
	args  []byte
	text  []byte
	// wireID is a tool call's id as the server sent it (block.ID may be
	// a generated one).
	wireID string
}

type decoder struct {
	sink     func(llm.Delta)
	resp     llm.Response
	started  bool
	blocks   []*blockState // in order of first appearance
	text     int           // index of the text block, -1 before it exists
	thinking int           // index of the thinking block, -1 before it exists
	tools    map[int]int   // tool call index -> block index of its latest call
	lastTool int           // block index of the latest tool call, -1 before one
	finish   string        // last finish_reason
	// latest is the index of the block that received the latest delta:
	// with finish_reason length it is the one the limit cut off.
	latest int
}

func newDecoder(sink func(llm.Delta)) *decoder {
	if sink == nil {
		sink = func(llm.Delta) {}
	}
	return &decoder{sink: sink, text: -1, thinking: -1, tools: map[int]int{}, latest: -1, lastTool: -1}
}

// decodeStream reads chunks until "data: [DONE]". A body that ends after a
// finish_reason but without [DONE] is accepted (some servers omit it);
// otherwise an early end is ErrStream. Failures return the partial response
// (nil when nothing arrived).
func decodeStream(r io.Reader, sink func(llm.Delta)) (*llm.Response, error) {
	d := newDecoder(sink)
	events := sse.NewReader(r)
	for {
		ev, err := events.Next()
		if err == io.EOF {
			if d.finish != "" {
				return d.result(), nil
			}
			return d.partial(), &llm.Error{Kind: llm.ErrStream, Message: "stream ended before [DONE]"}
		}
		if err != nil {
			return d.partial(), &llm.Error{Kind: llm.ErrStream, Message: "reading stream: " + err.Error(), Err: err}
		}
		if string(bytes.TrimSpace(ev.Data)) == "[DONE]" {
			return d.result(), nil
		}
		if ev.Name == "error" {
			return d.partial(), namedErrorEvent(ev.Data)
		}
		if err := d.handle(ev.Data); err != nil {
			return d.partial(), err
		}
	}
}

// namedErrorEvent is the failure an "event: error" reports, read as the
// official SDK reads it: {"error":{...}} or a bare error object. Plain text
// (from a proxy) is a server error with that text, not a malformed stream,
// so that the user sees what failed.
func namedErrorEvent(data []byte) *llm.Error {
	var wrapped struct {
		Error *apiError `json:"error"`
	}
	var e apiError
	switch {
	case json.Unmarshal(data, &wrapped) == nil && wrapped.Error != nil && wrapped.Error.Message != "":
		e = *wrapped.Error
	case json.Unmarshal(data, &e) == nil && e.Message != "":
	default:
		e = apiError{Message: httpstream.BodyText(data)}
	}
	return &llm.Error{Kind: kindForError(&e, 0), StatusCode: 200, Message: e.Message}
}

func (d *decoder) handle(data []byte) error {
	var c chunk
	if err := json.Unmarshal(data, &c); err != nil {
		return &llm.Error{Kind: llm.ErrStream, Message: fmt.Sprintf("malformed chunk: %v", err), Err: err}
	}
	if c.Error != nil {
		// OpenRouter reports a provider's failure this way, with an HTTP
		// status as the code and finish_reason "error".
		return &llm.Error{Kind: kindForError(c.Error, 0), StatusCode: 200, Message: c.Error.Message}
	}
	d.started = true
	if d.resp.ID == "" {
		d.resp.ID = c.ID
	}
	if d.resp.Model == "" {
		d.resp.Model = c.Model
	}
	u := c.Usage
	if u == nil && c.XGroq != nil {
		u = c.XGroq.Usage
	}
	if u != nil {
		cached := 0
		switch {
		case u.PromptTokensDetails != nil:
			cached = u.PromptTokensDetails.CachedTokens
		case u.PromptCacheHitTokens != nil:
			cached = *u.PromptCacheHitTokens
		}
		cached = min(max(cached, 0), u.PromptTokens)
		d.resp.Usage = llm.Usage{
			InputTokens:          u.PromptTokens - cached,
			CacheReadInputTokens: cached,
			OutputTokens:         u.CompletionTokens,
		}
	}
	for ci := range c.Choices {
		choice := &c.Choices[ci] // c is on the heap already (Unmarshal): no copy escapes
		if choice.Index != 0 {
			continue // we never ask for n > 1
		}
		delta := &choice.Delta
		reasoning := delta.Content.thinking
		switch {
		case nonEmpty(delta.ReasoningContent):
			reasoning = join(delta.ReasoningContent, reasoning)
		case nonEmpty(delta.Reasoning):
			reasoning = join(delta.Reasoning, reasoning)
		default:
			reasoning = join(detailsText(delta.ReasoningDetails), reasoning)
		}
		if nonEmpty(reasoning) {
			i := d.ensure(&d.thinking, llm.BlockThinking)
			d.blocks[i].text = append(d.blocks[i].text, *reasoning...)
			d.latest = i
			d.sink(llm.Delta{Kind: llm.DeltaThinking, Index: i, Text: *reasoning})
		}
		for _, text := range []*string{delta.Content.text, delta.Refusal} {
			if text != nil && *text != "" {
				i := d.ensure(&d.text, llm.BlockText)
				d.blocks[i].text = append(d.blocks[i].text, *text...)
				d.latest = i
				d.sink(llm.Delta{Kind: llm.DeltaText, Index: i, Text: *text})
			}
		}
		if delta.Refusal != nil && *delta.Refusal != "" {
			d.finish = "content_filter"
		}
		for k := range delta.ToolCalls {
			d.toolCall(&delta.ToolCalls[k])
		}
		if choice.FinishReason != nil && *choice.FinishReason != "" && d.finish != "content_filter" {
			d.finish = *choice.FinishReason
		}
	}
	if d.finish == "error" {
		// A server that gave up mid-answer without an error object: the
		// step failed, it did not end.
		return &llm.Error{Kind: llm.ErrServer, StatusCode: 200, Message: "the server ended the response with finish_reason \"error\""}
	}
	return nil
}

// toolCall applies one tool call fragment. A fragment belongs to the call
// of its index, except that a fragment with a name and an id other than
// that call's starts a new call (servers that send every whole call as
// index 0); a fragment without an index starts a new call when it has a
// name or an id, and otherwise continues the latest call.
func (d *decoder) toolCall(tc *toolCallDelta) {
	i, ok := -1, false
	if tc.Index != nil {
		i, ok = d.tools[*tc.Index]
		if ok && tc.ID != "" && tc.Function.Name != "" {
			if b := &d.blocks[i].block; b.Name != "" && d.blocks[i].wireID != tc.ID {
				ok = false
			}
		}
	} else if tc.ID == "" && tc.Function.Name == "" && d.lastTool >= 0 {
		i, ok = d.lastTool, true
	}
	if !ok {
		i = len(d.blocks)
		d.blocks = append(d.blocks, &blockState{block: llm.Block{Type: llm.BlockToolUse, ID: d.uniqueID(tc.ID)}, wireID: tc.ID})
		if tc.Index != nil {
			d.tools[*tc.Index] = i
		}
	}
	state := d.blocks[i]
	b := &state.block
	if b.Name == "" && tc.Function.Name != "" {
		b.Name = tc.Function.Name
		d.sink(llm.Delta{Kind: llm.DeltaToolUse, Index: i, ID: b.ID, Name: b.Name})
	}
	if len(tc.ExtraContent) > 0 && string(tc.ExtraContent) != "null" {
		b.Raw = append(json.RawMessage(nil), tc.ExtraContent...)
	}
	state.args = append(state.args, tc.Function.Arguments...)
	d.latest = i
	d.lastTool = i
}

// uniqueID is the id of a new tool call: the server's, unless it is
// missing or an earlier call of this response has it (the loop pairs
// results by id, and the editor shows one card per id), then a random one
// in OpenAI's "call_" form, as the official SDK makes for a missing id.
func (d *decoder) uniqueID(id string) string {
	taken := id == ""
	for _, b := range d.blocks {
		if b.block.Type == llm.BlockToolUse && b.block.ID == id {
			taken = true
		}
	}
	if !taken {
		return id
	}
	var r [12]byte
	_, _ = rand.Read(r[:]) // never fails (crypto/rand)
	return "call_" + hex.EncodeToString(r[:])
}

func nonEmpty(s *string) bool { return s != nil && *s != "" }

// join concatenates two optional strings.
func join(a, b *string) *string {
	switch {
	case !nonEmpty(a):
		return b
	case !nonEmpty(b):
		return a
	}
	s := *a + *b
	return &s
}

// detailsText is the readable text of reasoning_details parts (encrypted
// parts have none).
func detailsText(parts []reasoningDetail) *string {
	var out []byte
	for _, p := range parts {
		switch p.Type {
		case "reasoning.text":
			out = append(out, p.Text...)
		case "reasoning.summary":
			out = append(out, p.Summary...)
		}
	}
	if len(out) == 0 {
		return nil
	}
	s := string(out)
	return &s
}

// ensure returns the index of the block *slot points at, creating it.
func (d *decoder) ensure(slot *int, t llm.BlockType) int {
	if *slot < 0 {
		*slot = len(d.blocks)
		d.blocks = append(d.blocks, &blockState{block: llm.Block{Type: t}})
	}
	return *slot
}

func (d *decoder) result() *llm.Response {
	resp := d.resp
	resp.Content = make([]llm.Block, 0, len(d.blocks))
	hasTools := false
	for i, b := range d.blocks {
		block := b.block
		switch block.Type {
		case llm.BlockText:
			block.Text = string(b.text)
		case llm.BlockThinking:
			block.Thinking = string(b.text)
		}
		if block.Type == llm.BlockToolUse {
			hasTools = true
			block.Input, block.Text = jsonrepair.ToolInput(string(b.args))
			if d.finish == "length" && i == d.latest {
				// Cut off by the output limit while streaming: never
				// runnable, whatever the arguments parse or repair to.
				block.Input, block.Text = nil, string(b.args)
			}
		}
		resp.Content = append(resp.Content, block)
	}
	switch d.finish {
	case "tool_calls", "function_call":
		resp.StopReason = llm.StopToolUse
	case "length":
		resp.StopReason = llm.StopMaxTokens
	case "content_filter":
		resp.StopReason = llm.StopRefusal
	default:
		resp.StopReason = llm.StopEndTurn
	}
	if hasTools && resp.StopReason == llm.StopEndTurn {
		resp.StopReason = llm.StopToolUse
	}
	return &resp
}

func (d *decoder) partial() *llm.Response {
	if !d.started {
		return nil
	}
	return d.result()
}

// flexText is a delta's content: a string, or (Mistral) an array of parts,
// {"type":"text","text":…} and {"type":"thinking","thinking":[text parts]}.
type flexText struct {
	text, thinking *string
}

func (f *flexText) UnmarshalJSON(data []byte) error {
	*f = flexText{}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '[' {
		return json.Unmarshal(data, &f.text)
	}
	var parts []contentPartIn
	if err := json.Unmarshal(trimmed, &parts); err != nil {
		return err
	}
	var text, thinking []byte
	for _, p := range parts {
		switch p.Type {
		case "text":
			text = append(text, p.Text...)
		case "thinking":
			for _, t := range p.Thinking {
				thinking = append(thinking, t.Text...)
			}
		}
	}
	if len(text) > 0 {
		s := string(text)
		f.text = &s
	}
	if len(thinking) > 0 {
		s := string(thinking)
		f.thinking = &s
	}
	return nil
}

// contentPartIn is one part of an array content.
type contentPartIn struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Thinking []struct {
		Text string `json:"text"`
	} `json:"thinking"`
}
