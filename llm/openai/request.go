package openai

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/cordis-agent/cordis/internal/secrets"
	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/llm/internal/toolids"
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
	// ExtraContent is Gemini's extension (its thought signature), sent
	// only to Gemini.
	ExtraContent json.RawMessage `json:"extra_content,omitempty"`
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
	return encodeFor(req, backendFor(model, ""), maxTokensField, true)
}

// backend is what a request body must respect beyond the model's
// capabilities: the rules of the server it goes to.
type backend struct {
	model string
	// mistral: Mistral's API takes only tool call ids of nine letters or
	// digits (400 for the "call_…" or "toolu_…" ids of another provider).
	mistral bool
	// gemini: Gemini's OpenAI-compatible endpoint wants each tool call's
	// extra_content (its thought signature) back, and Gemini 3 refuses a
	// tool-call turn of its own without one.
	gemini bool
}

// backendFor recognises the backend by the model name and the base URL.
func backendFor(model, baseURL string) backend {
	host := ""
	if u, err := url.Parse(baseURL); err == nil {
		host = strings.ToLower(u.Hostname())
	}
	name := strings.ToLower(model)
	bare := name[strings.LastIndexByte(name, '/')+1:]
	b := backend{model: model}
	b.mistral = strings.HasSuffix(host, "mistral.ai") ||
		(!strings.Contains(name, "/") && hasAnyPrefix(bare, "mistral", "codestral", "devstral", "magistral", "ministral", "pixtral", "open-mistral", "open-mixtral"))
	b.gemini = strings.HasSuffix(host, "googleapis.com") || (!strings.Contains(name, "/") && strings.HasPrefix(bare, "gemini-"))
	return b
}

func hasAnyPrefix(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// toolIDRule is what the backend accepts as a tool call id. OpenAI caps
// ids at 40 characters; every server accepts [A-Za-z0-9_-], so only ids
// outside that (empty, too long, with spaces or control characters) are
// renamed, and ids like Kimi's "functions.Bash:0" stay as the model made
// them.
func (b backend) toolIDRule() toolids.Rule {
	if b.mistral {
		return toolids.Rule{
			Valid: func(id string) bool {
				return len(id) == 9 && toolids.IsWordOrDash(id, 9) && !strings.ContainsAny(id, "_-")
			},
			Fresh: func(old string, n, attempt int) string {
				return toolids.Digest(toolids.Alphanumeric, 9, old, n, attempt)
			},
		}
	}
	return toolids.Rule{
		Valid: func(id string) bool {
			if id == "" || len(id) > maxToolCallID {
				return false
			}
			for _, c := range []byte(id) {
				if c <= ' ' || c == 0x7f {
					return false
				}
			}
			return true
		},
		Fresh: func(old string, n, attempt int) string {
			if s := toolids.Sanitize(old, maxToolCallID); attempt == 0 && s != "" {
				return s
			}
			return "call_" + toolids.Digest(toolids.Alphanumeric, 24, old, n, attempt)
		},
	}
}

// maxToolCallID is OpenAI's limit on a tool call id's length.
const maxToolCallID = 40

// encodeFor returns the Chat Completions body for req as be takes it;
// streamUsage asks for the usage chunk (stream_options), which a few
// servers refuse.
func encodeFor(req *llm.Request, be backend, maxTokensField string, streamUsage bool) ([]byte, error) {
	model := be.model
	caps := llm.CapsOf(model)
	if maxTokensField == "" {
		maxTokensField = caps.MaxTokensField
	}
	body := chatRequest{
		Model:    model,
		Messages: []chatMessage{},
		Stream:   true,
	}
	if streamUsage {
		body.StreamOptions = &streamOptions{IncludeUsage: true}
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
	for i, m := range toolids.Rewrite(req.Messages, be.toolIDRule()) {
		msgs, err := encodeMessage(m, caps, be)
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
func encodeMessage(m llm.Message, caps llm.ModelCaps, be backend) ([]chatMessage, error) {
	switch m.Role {
	case llm.RoleAssistant:
		msg, err := encodeAssistant(m.Content, caps, be)
		if err != nil {
			return nil, err
		}
		if msg.Content == nil && len(msg.ToolCalls) == 0 {
			// Nothing the server can take (only thinking, or whitespace):
			// an empty assistant message is refused by several servers.
			return nil, nil
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
func encodeAssistant(blocks []llm.Block, caps llm.ModelCaps, be backend) (chatMessage, error) {
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
			call := chatToolCall{ID: b.ID, Type: "function", Function: functionCall{Name: b.Name, Arguments: args}}
			if be.gemini {
				call.ExtraContent = geminiExtraContent(b, len(msg.ToolCalls) == 0, be.model)
			}
			msg.ToolCalls = append(msg.ToolCalls, call)
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
	if len(text) > 0 {
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

// geminiSkipSignature is the value Gemini's thought-signature docs give
// for a tool call its API did not make (another provider's, after
// /model): it skips the signature check that Gemini 3 would fail with 400.
const geminiSkipSignature = "skip_thought_signature_validator"

// geminiExtraContent is the extra_content to send with a tool call to
// Gemini: the one it came with, else, on the first call of a turn for
// Gemini 3 and later (which require a signature there), the skip value.
func geminiExtraContent(b llm.Block, first bool, model string) json.RawMessage {
	if len(b.Raw) > 0 && json.Valid(b.Raw) {
		return b.Raw
	}
	name := strings.ToLower(model)
	name = name[strings.LastIndexByte(name, '/')+1:]
	if !first || !strings.HasPrefix(name, "gemini-") || strings.HasPrefix(name, "gemini-1") || strings.HasPrefix(name, "gemini-2") {
		return nil
	}
	raw, _ := json.Marshal(map[string]map[string]string{"google": {"thought_signature": geminiSkipSignature}})
	return raw
}
