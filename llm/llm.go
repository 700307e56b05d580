package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// Provider streams one model step. Implementations must be safe for
// concurrent use by several sessions.
type Provider interface {
	// Name identifies the provider in logs and the session log
	// ("anthropic", "openai", "replay").
	Name() string
	// Stream sends req and calls sink for every delta as it arrives, on the
	// calling goroutine, in wire order. It returns the assembled response
	// once the model has finished the step. Cancelling ctx aborts the
	// stream; the error then wraps ctx.Err(). A failure after part of the
	// response was streamed returns the partial response together with the
	// error, so the caller can persist what the user already saw.
	Stream(ctx context.Context, req *Request, sink func(Delta)) (*Response, error)
}

// Role is a conversation role.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// BlockType discriminates Block.
type BlockType string

const (
	BlockText       BlockType = "text"
	BlockImage      BlockType = "image"
	BlockToolUse    BlockType = "tool_use"
	BlockToolResult BlockType = "tool_result"
	BlockThinking   BlockType = "thinking"
	// BlockRedactedThinking carries Data that must be passed back unchanged.
	BlockRedactedThinking BlockType = "redacted_thinking"
	// BlockServerToolUse is a call of a tool the provider's API runs
	// itself (Anthropic's web search): ID, Name and Input as for tool_use,
	// and Raw, the block as received, so that fields cordis does not know
	// go back unchanged. No tool_result answers it: the API does.
	BlockServerToolUse BlockType = "server_tool_use"
	// BlockServerToolResult is the API's result of a server tool call
	// (web_search_tool_result, and any later *_tool_result): ToolUseID
	// names the call and Raw is the block exactly as received (encrypted
	// content included), sent back byte for byte.
	BlockServerToolResult BlockType = "server_tool_result"
)

// Block is one content block, in a provider-neutral shape that mirrors the
// Anthropic Messages API (the richest wire we speak). Only the fields that
// belong to Type are set.
type Block struct {
	Type BlockType `json:"type"`

	// text
	Text string `json:"text,omitempty"`

	// image: base64 Data with MediaType ("image/png").
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty"`

	// tool_use
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`

	// tool_result
	ToolUseID string  `json:"tool_use_id,omitempty"`
	Content   []Block `json:"content,omitempty"`
	IsError   bool    `json:"is_error,omitempty"`

	// thinking
	Thinking  string `json:"thinking,omitempty"`
	Signature string `json:"signature,omitempty"`

	// Citations of a text block, as the API gave them (a JSON array; web
	// search results carry an encrypted_index the API wants back).
	Citations json.RawMessage `json:"citations,omitempty"`
	// Raw is a server tool block as received (see BlockServerToolUse and
	// BlockServerToolResult); on a tool_use block from an OpenAI-compatible
	// server, the call's extra_content (Gemini's thought signature), sent
	// back only to that backend.
	Raw json.RawMessage `json:"raw,omitempty"`
}

// Text returns a text block.
func Text(s string) Block { return Block{Type: BlockText, Text: s} }

// Message is one turn of the conversation.
type Message struct {
	Role    Role    `json:"role"`
	Content []Block `json:"content"`
}

// ToolSpec describes a tool offered to the model.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// Request is one model step.
type Request struct {
	Model     string     `json:"model"`
	MaxTokens int        `json:"max_tokens"`
	System    []string   `json:"system,omitempty"`
	Messages  []Message  `json:"messages"`
	Tools     []ToolSpec `json:"tools,omitempty"`
	// ThinkingBudget > 0 enables extended thinking where supported.
	ThinkingBudget int `json:"thinking_budget,omitempty"`
	// WebSearch, when set, offers the provider's own web search tool; only
	// a provider that is a WebSearcher reporting true sends it.
	WebSearch *WebSearch `json:"web_search,omitempty"`
}

// WebSearch configures the web search a provider runs itself (Anthropic's
// server-side web_search tool). AllowedDomains and BlockedDomains are
// exclusive; MaxUses 0 leaves the number of searches to the API.
type WebSearch struct {
	MaxUses        int      `json:"max_uses,omitempty"`
	AllowedDomains []string `json:"allowed_domains,omitempty"`
	BlockedDomains []string `json:"blocked_domains,omitempty"`
}

// WebSearcher is implemented by providers whose API can search the web
// itself (Request.WebSearch). A provider that is not one, or answers
// false, ignores Request.WebSearch, and the loop does not offer the
// WebSearch tool.
type WebSearcher interface {
	ServesWebSearch() bool
}

// StopReason is why the model ended its step, in Anthropic's vocabulary;
// other providers map onto it.
type StopReason string

const (
	StopEndTurn      StopReason = "end_turn"
	StopToolUse      StopReason = "tool_use"
	StopMaxTokens    StopReason = "max_tokens"
	StopSequence     StopReason = "stop_sequence"
	StopRefusal      StopReason = "refusal"
	StopPauseTurn    StopReason = "pause_turn"
	StopContextLimit StopReason = "model_context_window_exceeded"
)

// Usage counts tokens for one step.
type Usage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens,omitempty"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens,omitempty"`
	// WebSearchRequests counts the searches the API ran for the step
	// (billed per search, apart from tokens).
	WebSearchRequests int `json:"web_search_requests,omitempty"`
}

// ContextTokens is the number of tokens the step occupied in the context
// window.
func (u Usage) ContextTokens() int {
	return u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens + u.OutputTokens
}

// Response is the assembled result of one step.
type Response struct {
	ID         string     `json:"id,omitempty"`
	Model      string     `json:"model,omitempty"`
	Content    []Block    `json:"content"`
	StopReason StopReason `json:"stop_reason"`
	Usage      Usage      `json:"usage"`
}

// DeltaKind discriminates Delta.
type DeltaKind string

const (
	DeltaText     DeltaKind = "text"
	DeltaThinking DeltaKind = "thinking"
	// DeltaToolUse announces a tool_use block (ID and Name set) as soon as
	// it starts, before its input is complete.
	DeltaToolUse DeltaKind = "tool_use"
	// DeltaRetry reports that the provider is waiting to retry (Text says
	// why); the loop may show it to the user.
	DeltaRetry DeltaKind = "retry"
)

// Delta is a streamed fragment.
type Delta struct {
	Kind  DeltaKind
	Index int // content block index
	Text  string
	ID    string
	Name  string
}

// ErrorKind classifies provider failures so the loop can explain them.
type ErrorKind string

const (
	ErrAuth          ErrorKind = "authentication"
	ErrPermission    ErrorKind = "permission"
	ErrInvalid       ErrorKind = "invalid_request"
	ErrNotFound      ErrorKind = "not_found"
	ErrRateLimit     ErrorKind = "rate_limit"
	ErrSpendLimit    ErrorKind = "spend_limit"
	ErrOverloaded    ErrorKind = "overloaded"
	ErrServer        ErrorKind = "server"
	ErrTimeout       ErrorKind = "timeout"
	ErrStream        ErrorKind = "stream"    // malformed or broken stream
	ErrTransport     ErrorKind = "transport" // connection failures
	ErrMissingAPIKey ErrorKind = "missing_api_key"
)

// Error is a provider failure. Message never contains credentials.
type Error struct {
	Kind       ErrorKind
	StatusCode int // HTTP status; 200 for an error event inside a stream
	Message    string
	// Retryable is true when the provider's own retry policy would retry.
	Retryable bool
	// KeyEnv names the environment variable to set, for ErrMissingAPIKey.
	KeyEnv string
	Err    error
}

func (e *Error) Error() string {
	if e.StatusCode != 0 {
		return fmt.Sprintf("model API %s error (HTTP %d): %s", e.Kind, e.StatusCode, e.Message)
	}
	return fmt.Sprintf("model API %s error: %s", e.Kind, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// ErrorKindOf returns the kind of a provider error, or "" for other errors.
func ErrorKindOf(err error) ErrorKind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return ""
}

// CredentialChecker is implemented by providers that need credentials.
// CheckCredentials returns an *Error of kind ErrMissingAPIKey whose Message
// names the environment variable to set, or nil when a key is present. It
// never returns or logs the key itself.
type CredentialChecker interface {
	CheckCredentials() error
}
