package openai

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cordis-agent/cordis/internal/secrets"
	"github.com/cordis-agent/cordis/llm"
)

// Wire types fix the field order so equal requests encode to equal bytes.

type chatRequest struct {
	Model               string         `json:"model"`
	Messages            []chatMessage  `json:"messages"`
	Tools               []chatTool     `json:"tools,omitempty"`
	MaxTokens           int            `json:"max_tokens,omitempty"`
	MaxCompletionTokens int            `json:"max_completion_tokens,omitempty"`
	Stream              bool           `json:"stream"`
	StreamOptions       *streamOptions `json:"stream_options,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type chatMessage struct {
	Role string `json:"role"`
	// Content is a JSON string or an array of content parts.
	Content json.RawMessage `json:"content,omitempty"`
	// ReasoningContent is the thinking of a tool-call turn, passed back
	// for models that require it (llm.ModelCaps.ReasoningBack).
	ReasoningContent *string        `json:"reasoning_content,omitempty"`
	ToolCalls        []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string         `json:"tool_call_id,omitempty"`
}

type contentPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

type chatToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function functionCall `json:"function"`
}

type functionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type chatTool struct {
	Type     string       `json:"type"`
	Function functionSpec `json:"function"`
}

type functionSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// encodeRequest returns the Chat Completions body for req. maxTokensField is
// "max_tokens" or "max_completion_tokens"; "" picks the one the model
// takes. No output limit is sent when req.MaxTokens is 0.
func encodeRequest(req *llm.Request, model, maxTokensField string) ([]byte, error) {
	caps := llm.CapsOf(model)
	if maxTokensField == "" {
		maxTokensField = caps.MaxTokensField
	}
	body := chatRequest{
		Model:         model,
		Messages:      []chatMessage{},
		Stream:        true,
		StreamOptions: &streamOptions{IncludeUsage: true},
	}
	if req.MaxTokens > 0 {
		if maxTokensField == "max_completion_tokens" {
			body.MaxCompletionTokens = req.MaxTokens
		} else {
			body.MaxTokens = req.MaxTokens
		}
	}
	var system []string
	for _, s := range req.System {
		if s != "" {
			system = append(system, s)
		}
	}
	if len(system) > 0 {
		body.Messages = append(body.Messages, chatMessage{Role: "system", Content: jsonString(strings.Join(system, "\n\n"))})
	}
	for i, m := range req.Messages {
		msgs, err := encodeMessage(m, caps)
		if err != nil {
			return nil, fmt.Errorf("openai: message %d: %w", i, err)
		}
		body.Messages = append(body.Messages, msgs...)
	}
	for _, t := range req.Tools {
		params := t.InputSchema
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object"}`)
		}
		body.Tools = append(body.Tools, chatTool{Type: "function", Function: functionSpec{Name: t.Name, Description: t.Description, Parameters: params}})
	}
	out, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("openai: encoding request: %w", err)
	}
	// The key a command printed (in a tool result, say) is not sent back:
	// it would stay in the conversation and every log of it.
	return secrets.Scrub(out), nil
}

// encodeMessage maps one llm.Message onto one or more chat messages.
func encodeMessage(m llm.Message, caps llm.ModelCaps) ([]chatMessage, error) {
	switch m.Role {
	case llm.RoleAssistant:
		msg, err := encodeAssistant(m.Content, caps)
		if err != nil {
			return nil, err
		}
		return []chatMessage{msg}, nil
	case llm.RoleUser:
		return encodeUser(m.Content)
	default:
		return nil, fmt.Errorf("unsupported role %q", m.Role)
	}
}

// encodeAssistant maps an assistant message. Its thinking is left out
// (Chat Completions servers ignore or refuse it), except on a tool-call
// turn of a model that requires it back.
func encodeAssistant(blocks []llm.Block, caps llm.ModelCaps) (chatMessage, error) {
	msg := chatMessage{Role: "assistant"}
	var text, reasoning []string
	for _, b := range blocks {
		switch b.Type {
		case llm.BlockText:
			if strings.TrimSpace(b.Text) != "" {
				text = append(text, b.Text)
			}
		case llm.BlockToolUse:
			args := string(b.Input)
			if len(b.Input) == 0 {
				args = "{}"
			}
			msg.ToolCalls = append(msg.ToolCalls, chatToolCall{ID: b.ID, Type: "function", Function: functionCall{Name: b.Name, Arguments: args}})
		case llm.BlockThinking:
			reasoning = append(reasoning, b.Thinking)
		case llm.BlockRedactedThinking:
		case llm.BlockServerToolUse, llm.BlockServerToolResult:
			// Another provider's server-side search: its result is
			// encrypted for that provider; the text after it stays.
		default:
			return msg, fmt.Errorf("block type %q not allowed in an assistant message", b.Type)
		}
	}
	if len(text) > 0 || len(msg.ToolCalls) == 0 {
		msg.Content = jsonString(strings.Join(text, "\n"))
	}
	if caps.ReasoningBack && len(msg.ToolCalls) > 0 {
		// Even an empty one: DeepSeek refuses a tool-call turn without it.
		r := strings.Join(reasoning, "")
		msg.ReasoningContent = &r
	}
	return msg, nil
}

// encodeUser emits tool messages first (they must follow the assistant's
// tool calls directly), then one user message with the remaining text and
// images, including images returned by tools.
func encodeUser(blocks []llm.Block) ([]chatMessage, error) {
	var (
		out   []chatMessage
		parts []contentPart
	)
	for _, b := range blocks {
		switch b.Type {
		case llm.BlockText, llm.BlockImage:
			if p, ok := encodePart(b); ok {
				parts = append(parts, p)
			}
		case llm.BlockToolResult:
			var text []string
			for _, c := range b.Content {
				switch c.Type {
				case llm.BlockText:
					text = append(text, c.Text)
				case llm.BlockImage:
					parts = append(parts, contentPart{Type: "text", Text: "Image returned by tool call " + b.ToolUseID + ":"})
					p, _ := encodePart(c)
					parts = append(parts, p)
				default:
					return nil, fmt.Errorf("block type %q not allowed in a tool result", c.Type)
				}
			}
			content := strings.Join(text, "\n")
			if b.IsError {
				content = "Error: " + content
			}
			out = append(out, chatMessage{Role: "tool", ToolCallID: b.ToolUseID, Content: jsonString(content)})
		default:
			return nil, fmt.Errorf("block type %q not allowed in a user message", b.Type)
		}
	}
	if len(parts) > 0 {
		out = append(out, chatMessage{Role: "user", Content: encodeParts(parts)})
	}
	return out, nil
}

func encodePart(b llm.Block) (contentPart, bool) {
	if b.Type == llm.BlockImage {
		return contentPart{Type: "image_url", ImageURL: &imageURL{URL: "data:" + b.MediaType + ";base64," + b.Data}}, true
	}
	return contentPart{Type: "text", Text: b.Text}, strings.TrimSpace(b.Text) != ""
}

// encodeParts uses a plain string when there are no images: some local
// servers accept only string content.
func encodeParts(parts []contentPart) json.RawMessage {
	text := make([]string, 0, len(parts))
	for _, p := range parts {
		if p.Type != "text" {
			raw, _ := json.Marshal(parts)
			return raw
		}
		text = append(text, p.Text)
	}
	return jsonString(strings.Join(text, "\n"))
}

func jsonString(s string) json.RawMessage {
	raw, _ := json.Marshal(s) // a string always marshals
	return raw
}
