package anthropic

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cordis-agent/cordis/internal/secrets"
	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/llm/internal/toolids"
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
	Citations json.RawMessage  `json:"citations,omitempty"`
	Cache     *cacheControl    `json:"cache_control,omitempty"`
	// raw, when set, is the whole block (a server tool's call or result,
	// sent back as the API gave it); Type still names it.
	raw json.RawMessage
}

// MarshalJSON writes a raw block as it is and any other by its fields.
func (w wireBlock) MarshalJSON() ([]byte, error) {
	if w.raw != nil {
		return w.raw, nil
	}
	type fields wireBlock
	return json.Marshal(fields(w))
}

// cacheControl marks a prompt-cache breakpoint: the request's prefix up to
// and including the marked block is written to (or read from) the cache.
type cacheControl struct {
	Type string `json:"type"`
}

var ephemeral = &cacheControl{Type: "ephemeral"}

type wireImageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

// wireTool is a tool the client runs (Name, Description, InputSchema) or
// one the API runs (Type set: web search and its settings).
type wireTool struct {
	Type           string          `json:"type,omitempty"`
	Name           string          `json:"name"`
	Description    string          `json:"description,omitempty"`
	InputSchema    json.RawMessage `json:"input_schema,omitempty"`
	MaxUses        int             `json:"max_uses,omitempty"`
	AllowedDomains []string        `json:"allowed_domains,omitempty"`
	BlockedDomains []string        `json:"blocked_domains,omitempty"`
	Cache          *cacheControl   `json:"cache_control,omitempty"`
}

// webSearchTool is the versioned type of the server-side web search tool
// cordis sends; its name is fixed by the API.
const (
	webSearchTool     = "web_search_20250305"
	webSearchToolName = "web_search"
)

type wireThinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens,omitempty"`
}

var (
	emptyObject       = json.RawMessage(`{}`)
	emptyObjectSchema = json.RawMessage(`{"type":"object"}`)
)

// EncodeRequest returns the Messages API body for req with "stream": true.
// A non-empty model overrides req.Model (the provider passes the model the
// circuit breaker chose). The output is deterministic.
//
// The API rejects, and so this never sends, a text block that is empty or
// whitespace only and a thinking block without its signature (one cut off
// by a cancel or an error, or another provider's reasoning); tool call ids
// it would refuse (another provider's) are renamed, with their results; a
// message left empty is dropped and its
// neighbours of one role joined. A tool_use block with nil Input is sent
// with {}. ThinkingBudget > 0 asks for thinking in the form the model
// accepts (llm.CapsOf). Prompt-cache breakpoints are placed by
// placeCacheBreakpoints. MaxTokens is sent as given: the Provider fills in
// its default before calling.
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
	for i, m := range toolids.Rewrite(req.Messages, toolIDRule) {
		content, err := encodeBlocks(m.Content)
		if err != nil {
			return nil, fmt.Errorf("anthropic: message %d: %w", i, err)
		}
		body.Messages = appendMessage(body.Messages, wireMessage{Role: m.Role, Content: content})
	}
	for _, t := range req.Tools {
		schema := t.InputSchema
		if len(schema) == 0 {
			schema = emptyObjectSchema
		}
		body.Tools = append(body.Tools, wireTool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	if ws := req.WebSearch; ws != nil {
		if len(ws.AllowedDomains) > 0 && len(ws.BlockedDomains) > 0 {
			return nil, fmt.Errorf("anthropic: web search: allowed and blocked domains cannot both be set")
		}
		body.Tools = append(body.Tools, wireTool{Type: webSearchTool, Name: webSearchToolName,
			MaxUses: ws.MaxUses, AllowedDomains: ws.AllowedDomains, BlockedDomains: ws.BlockedDomains})
	}
	if req.ThinkingBudget > 0 {
		body.Thinking = &wireThinking{Type: "enabled", BudgetTokens: req.ThinkingBudget}
		if llm.CapsOf(model).Thinking == llm.ThinkingAdaptive {
			body.Thinking = &wireThinking{Type: "adaptive"}
		}
	}
	placeCacheBreakpoints(&body)
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
		return wireBlock{Type: "text", Text: b.Text, Citations: b.Citations}, strings.TrimSpace(b.Text) != "", nil
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
		return wireBlock{Type: "thinking", Thinking: &thinking, Signature: &signature}, signature != "", nil
	case llm.BlockRedactedThinking:
		return wireBlock{Type: "redacted_thinking", Data: b.Data}, true, nil
	case llm.BlockServerToolUse:
		if len(b.Raw) > 0 {
			if !json.Valid(b.Raw) {
				return w, false, fmt.Errorf("server_tool_use %s: not valid JSON", b.ID)
			}
			return wireBlock{Type: "server_tool_use", raw: b.Raw}, true, nil
		}
		input := b.Input
		if len(input) == 0 {
			input = emptyObject
		}
		return wireBlock{Type: "server_tool_use", ID: b.ID, Name: b.Name, Input: input}, true, nil
	case llm.BlockServerToolResult:
		// Only the API's own block can go back: its content is encrypted.
		if !json.Valid(b.Raw) {
			return w, false, fmt.Errorf("server tool result %s: not valid JSON", b.ToolUseID)
		}
		return wireBlock{Type: cmp.Or(b.Name, "server_tool_result"), raw: b.Raw}, true, nil
	default:
		return w, false, fmt.Errorf("unsupported block type %q", b.Type)
	}
}

// toolIDRule is the API's tool_use id pattern, ^[a-zA-Z0-9_-]+$: ids
// another provider made ("functions.Bash:0", an empty one, one reused
// across turns) are renamed in the request (package toolids).
var toolIDRule = toolids.Rule{
	Valid: func(id string) bool { return toolids.IsWordOrDash(id, 0) },
	Fresh: func(old string, n, attempt int) string {
		if s := toolids.Sanitize(old, 0); attempt == 0 && s != "" {
			return s
		}
		return "toolu_" + toolids.Digest(toolids.Alphanumeric, 24, old, n, attempt)
	},
}

// appendMessage adds m unless it is empty (every block of it was left
// out), joining it to the previous message when both have one role: the
// API refuses empty messages and two of one role in a row.
func appendMessage(msgs []wireMessage, m wireMessage) []wireMessage {
	if len(m.Content) == 0 {
		return msgs
	}
	if n := len(msgs); n > 0 && msgs[n-1].Role == m.Role {
		msgs[n-1].Content = append(msgs[n-1].Content, m.Content...)
		return msgs
	}
	return append(msgs, m)
}

// placeCacheBreakpoints marks the API's four prompt-cache breakpoints at
// most, so that in a session each request reads from the cache what the
// one before it wrote:
//   - the last tool: the tool list starts every request and rarely changes;
//   - the last block of the first message: with the system prompt before
//     it, the session's fixed prefix (its first prompt and the context
//     injected into it); marked in every request, so the first message
//     stays the same bytes for as long as the conversation lasts;
//   - the last block of the last message: the whole request is written;
//   - the last block of the user message before it: the point the previous
//     request of a tool loop wrote, found however many blocks the latest
//     step added (the API looks back only 20 blocks from a breakpoint).
//
// Thinking blocks cannot carry a breakpoint; the last block that can is
// marked instead.
func placeCacheBreakpoints(body *wireRequest) {
	if n := len(body.Tools); n > 0 {
		body.Tools[n-1].Cache = ephemeral
	}
	if len(body.Messages) > 0 && body.Messages[0].Role == llm.RoleUser {
		markLastCacheable(body.Messages[0].Content)
	}
	marked := 0
	for i := len(body.Messages) - 1; i > 0 && marked < 2; i-- {
		if body.Messages[i].Role == llm.RoleUser && markLastCacheable(body.Messages[i].Content) {
			marked++
		}
	}
}

func markLastCacheable(blocks []wireBlock) bool {
	for j := len(blocks) - 1; j >= 0; j-- {
		if t := blocks[j].Type; t != "thinking" && t != "redacted_thinking" && blocks[j].raw == nil {
			blocks[j].Cache = ephemeral
			return true
		}
	}
	return false
}
