package anthropic

import (
	"encoding/json"
	"fmt"
	"github.com/cordis-agent/cordis/internal/secrets"

	"github.com/cordis-agent/cordis/llm"
)

// The wire types below fix the JSON field order; EncodeRequest never ranges
// over a map, so equal requests encode to equal bytes.

type wireRequest struct {
	Model     string        `json:"model"`
	MaxTokens int           `json:"max_tokens"`
	System    []wireBlock   `json:"system,omitempty"`
	Messages  []wireMessage `json:"messages"`
	Tools     []wireTool    `json:"tools,omitempty"`
	Thinking  *wireThinking `json:"thinking,omitempty"`
	Stream    bool          `json:"stream"`
}

type wireMessage struct {
	Role    llm.Role    `json:"role"`
	Content []wireBlock `json:"content"`
}

// wireBlock is every request content block type in one struct; pointer
// fields are the ones that must appear even when empty.
type wireBlock struct {
	Type      string           `json:"type"`
	Text      string           `json:"text,omitempty"`
	Source    *wireImageSource `json:"source,omitempty"`
	ID        string           `json:"id,omitempty"`
	Name      string           `json:"name,omitempty"`
	Input     json.RawMessage  `json:"input,omitempty"`
	ToolUseID string           `json:"tool_use_id,omitempty"`
	Content   []wireBlock      `json:"content,omitempty"`
	IsError   bool             `json:"is_error,omitempty"`
	Thinking  *string          `json:"thinking,omitempty"`
	Signature *string          `json:"signature,omitempty"`
	Data      string           `json:"data,omitempty"`
}

type wireImageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

type wireTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type wireThinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens"`
}

var (
	emptyObject       = json.RawMessage(`{}`)
	emptyObjectSchema = json.RawMessage(`{"type":"object"}`)
)

// EncodeRequest returns the Messages API body for req with "stream": true.
// A non-empty model overrides req.Model (the provider passes the model the
// circuit breaker chose). The output is deterministic.
//
// Empty text blocks are dropped (the API rejects them); a tool_use block
// with nil Input is sent with {}; ThinkingBudget > 0 adds
// {"type":"enabled","budget_tokens":N}. MaxTokens is sent as given: the
// Provider fills in its default before calling.
func EncodeRequest(req *llm.Request, model string) ([]byte, error) {
	if model == "" {
		model = req.Model
	}
	body := wireRequest{
		Model:     model,
		MaxTokens: req.MaxTokens,
		Messages:  make([]wireMessage, 0, len(req.Messages)),
		Stream:    true,
	}
	for _, s := range req.System {
		if s != "" {
			body.System = append(body.System, wireBlock{Type: "text", Text: s})
		}
	}
	for i, m := range req.Messages {
		content, err := encodeBlocks(m.Content)
		if err != nil {
			return nil, fmt.Errorf("anthropic: message %d: %w", i, err)
		}
		body.Messages = append(body.Messages, wireMessage{Role: m.Role, Content: content})
	}
	for _, t := range req.Tools {
		schema := t.InputSchema
		if len(schema) == 0 {
			schema = emptyObjectSchema
		}
		body.Tools = append(body.Tools, wireTool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	if req.ThinkingBudget > 0 {
		body.Thinking = &wireThinking{Type: "enabled", BudgetTokens: req.ThinkingBudget}
	}
	out, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("anthropic: encoding request: %w", err)
	}
	// The key a command printed (in a tool result, say) is not sent back:
	// it would stay in the conversation and every log of it.
	return secrets.Scrub(out), nil
}

func encodeBlocks(blocks []llm.Block) ([]wireBlock, error) {
	out := make([]wireBlock, 0, len(blocks))
	for i, b := range blocks {
		w, keep, err := encodeBlock(b)
		if err != nil {
			return nil, fmt.Errorf("block %d: %w", i, err)
		}
		if keep {
			out = append(out, w)
		}
	}
	return out, nil
}

func encodeBlock(b llm.Block) (w wireBlock, keep bool, err error) {
	switch b.Type {
	case llm.BlockText:
		return wireBlock{Type: "text", Text: b.Text}, b.Text != "", nil
	case llm.BlockImage:
		return wireBlock{Type: "image", Source: &wireImageSource{Type: "base64", MediaType: b.MediaType, Data: b.Data}}, true, nil
	case llm.BlockToolUse:
		input := b.Input
		if len(input) == 0 {
			input = emptyObject
		}
		if !json.Valid(input) {
			return w, false, fmt.Errorf("tool_use %s: input is not valid JSON", b.ID)
		}
		return wireBlock{Type: "tool_use", ID: b.ID, Name: b.Name, Input: input}, true, nil
	case llm.BlockToolResult:
		content, err := encodeBlocks(b.Content)
		if err != nil {
			return w, false, fmt.Errorf("tool_result %s: %w", b.ToolUseID, err)
		}
		return wireBlock{Type: "tool_result", ToolUseID: b.ToolUseID, Content: content, IsError: b.IsError}, true, nil
	case llm.BlockThinking:
		thinking, signature := b.Thinking, b.Signature
		return wireBlock{Type: "thinking", Thinking: &thinking, Signature: &signature}, true, nil
	case llm.BlockRedactedThinking:
		return wireBlock{Type: "redacted_thinking", Data: b.Data}, true, nil
	default:
		return w, false, fmt.Errorf("unsupported block type %q", b.Type)
	}
}
