package acp

import (
	"encoding/json"
)

// ProtocolVersion is the ACP version cordis speaks.
const ProtocolVersion = 1

// The method names and the enums StopReason, ToolKind and ToolCallStatus
// are generated from the vendored ACP schema (schema_gen.go); the rest of
// the types are kept by hand, their JSON shapes pinned by the snapshot
// scenarios and checked against the schema by the interop suite.
//go:generate go run ./internal/gen

// Meta is the `_meta` extension object every ACP type may carry.
type Meta map[string]any

// Implementation names a peer.
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// FileSystemCapability says which fs/* methods the client serves.
type FileSystemCapability struct {
	ReadTextFile  bool `json:"readTextFile,omitempty"`
	WriteTextFile bool `json:"writeTextFile,omitempty"`
}

// ClientCapabilities are what the editor offers.
type ClientCapabilities struct {
	FS       FileSystemCapability `json:"fs"`
	Terminal bool                 `json:"terminal,omitempty"`
	Session  *struct {
		ConfigOptions *struct {
			Boolean *struct{} `json:"boolean,omitempty"`
		} `json:"configOptions,omitempty"`
		Notices    *struct{} `json:"notices,omitempty"`
		Compaction *struct{} `json:"compaction,omitempty"`
	} `json:"session,omitempty"`
	Auth *struct {
		Terminal bool `json:"terminal,omitempty"`
	} `json:"auth,omitempty"`
	Elicitation *ElicitationCapabilities `json:"elicitation,omitempty"`
	Meta        Meta                     `json:"_meta,omitempty"`
}

// ElicitationCapabilities are the elicitation modes the client supports.
type ElicitationCapabilities struct {
	Form *Supported `json:"form,omitempty"`
	URL  *Supported `json:"url,omitempty"`
}

// TerminalAuth reports whether the client runs terminal logins: the
// typed auth.terminal, or the older `_meta["terminal-auth"]: true`.
func (c ClientCapabilities) TerminalAuth() bool {
	if c.Auth != nil && c.Auth.Terminal {
		return true
	}
	legacy, _ := c.Meta["terminal-auth"].(bool)
	return legacy
}

// Notices reports whether the client accepts `notice` updates.
func (c ClientCapabilities) Notices() bool { return c.Session != nil && c.Session.Notices != nil }

// Compaction reports whether the client takes compaction_update (it
// shows context compactions as such rather than as text).
func (c ClientCapabilities) Compaction() bool { return c.Session != nil && c.Session.Compaction != nil }

// ElicitationForm reports whether the client takes form elicitations
// (elicitation/create in form mode).
func (c ClientCapabilities) ElicitationForm() bool {
	return c.Elicitation != nil && c.Elicitation.Form != nil
}

// ElicitationURL reports whether the client takes URL-mode elicitations
// (it shows the URL and asks before opening it).
func (c ClientCapabilities) ElicitationURL() bool {
	return c.Elicitation != nil && c.Elicitation.URL != nil
}

type InitializeRequest struct {
	ProtocolVersion    int                `json:"protocolVersion"`
	ClientCapabilities ClientCapabilities `json:"clientCapabilities"`
	ClientInfo         *Implementation    `json:"clientInfo,omitempty"`
	Meta               Meta               `json:"_meta,omitempty"`
}

type PromptCapabilities struct {
	Image           bool `json:"image"`
	Audio           bool `json:"audio"`
	EmbeddedContext bool `json:"embeddedContext"`
}

type MCPCapabilities struct {
	HTTP bool `json:"http"`
	SSE  bool `json:"sse"`
}

// Supported marks an optional capability as present (`{}`).
type Supported struct{}

type SessionCapabilities struct {
	List                  *Supported `json:"list,omitempty"`
	Close                 *Supported `json:"close,omitempty"`
	Resume                *Supported `json:"resume,omitempty"`
	Delete                *Supported `json:"delete,omitempty"`
	AdditionalDirectories *Supported `json:"additionalDirectories,omitempty"`
	// Fork advertises session/fork, an unstable method (the vendored
	// stable schema has neither it nor this field).
	Fork *Supported `json:"fork,omitempty"`
}

// AgentAuthCapabilities: Logout advertises the logout method.
type AgentAuthCapabilities struct {
	Logout *Supported `json:"logout,omitempty"`
}

type AgentCapabilities struct {
	LoadSession         bool                   `json:"loadSession"`
	PromptCapabilities  PromptCapabilities     `json:"promptCapabilities"`
	MCPCapabilities     MCPCapabilities        `json:"mcpCapabilities"`
	SessionCapabilities SessionCapabilities    `json:"sessionCapabilities"`
	Auth                *AgentAuthCapabilities `json:"auth,omitempty"`
}

// AuthMethod is an authentication method: handled by the agent through
// authenticate (Type ""), or a terminal login the client runs (Type
// "terminal": the agent's own command with Args appended). Meta carries
// the older `_meta["terminal-auth"]` form Zed reads.
type AuthMethod struct {
	Type        string            `json:"type,omitempty"`
	ID          string            `json:"id"`
	Name        string            `json:"name"`
	Description string            `json:"description,omitempty"`
	Args        []string          `json:"args,omitempty"`
	Env         map[string]string `json:"env,omitempty"`
	Meta        Meta              `json:"_meta,omitempty"`
}

type InitializeResponse struct {
	ProtocolVersion   int               `json:"protocolVersion"`
	AgentCapabilities AgentCapabilities `json:"agentCapabilities"`
	AuthMethods       []AuthMethod      `json:"authMethods"`
	AgentInfo         *Implementation   `json:"agentInfo,omitempty"`
}

type AuthenticateRequest struct {
	MethodID string `json:"methodId"`
}

// EnvVariable and HTTPHeader are name/value pairs.
type EnvVariable struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type HTTPHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// MCPServer is one of the three McpServer variants; Type is "" for stdio.
type MCPServer struct {
	Type    string        `json:"type,omitempty"`
	Name    string        `json:"name"`
	Command string        `json:"command,omitempty"`
	Args    []string      `json:"args,omitempty"`
	Env     []EnvVariable `json:"env,omitempty"`
	URL     string        `json:"url,omitempty"`
	Headers []HTTPHeader  `json:"headers,omitempty"`
}

type NewSessionRequest struct {
	Cwd                   string      `json:"cwd"`
	MCPServers            []MCPServer `json:"mcpServers"`
	AdditionalDirectories []string    `json:"additionalDirectories,omitempty"`
}

type SessionMode struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

type SessionModeState struct {
	CurrentModeID  string        `json:"currentModeId"`
	AvailableModes []SessionMode `json:"availableModes"`
}

type ConfigSelectOption struct {
	Value       string `json:"value"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// ConfigOption is a select-kind SessionConfigOption.
type ConfigOption struct {
	ID           string               `json:"id"`
	Name         string               `json:"name"`
	Description  string               `json:"description,omitempty"`
	Category     string               `json:"category,omitempty"`
	Type         string               `json:"type"`
	CurrentValue string               `json:"currentValue"`
	Options      []ConfigSelectOption `json:"options"`
}

type NewSessionResponse struct {
	SessionID     string            `json:"sessionId"`
	Modes         *SessionModeState `json:"modes,omitempty"`
	ConfigOptions []ConfigOption    `json:"configOptions,omitempty"`
}

type LoadSessionRequest struct {
	SessionID             string      `json:"sessionId"`
	Cwd                   string      `json:"cwd"`
	MCPServers            []MCPServer `json:"mcpServers"`
	AdditionalDirectories []string    `json:"additionalDirectories,omitempty"`
}

type LoadSessionResponse struct {
	Modes         *SessionModeState `json:"modes,omitempty"`
	ConfigOptions []ConfigOption    `json:"configOptions,omitempty"`
}

// ResumeSessionRequest reopens a session without replaying it
// (sessionCapabilities.resume): the editor still shows the conversation.
type ResumeSessionRequest struct {
	SessionID             string      `json:"sessionId"`
	Cwd                   string      `json:"cwd"`
	MCPServers            []MCPServer `json:"mcpServers,omitempty"`
	AdditionalDirectories []string    `json:"additionalDirectories,omitempty"`
}

type ResumeSessionResponse struct {
	Modes         *SessionModeState `json:"modes,omitempty"`
	ConfigOptions []ConfigOption    `json:"configOptions,omitempty"`
}

// DeleteSessionRequest removes a session for good
// (sessionCapabilities.delete).
type DeleteSessionRequest struct {
	SessionID string `json:"sessionId"`
}

type ListSessionsRequest struct {
	Cwd    string `json:"cwd,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

type SessionInfo struct {
	SessionID             string   `json:"sessionId"`
	Cwd                   string   `json:"cwd"`
	AdditionalDirectories []string `json:"additionalDirectories,omitempty"`
	Title                 string   `json:"title,omitempty"`
	UpdatedAt             string   `json:"updatedAt,omitempty"`
}

type ListSessionsResponse struct {
	Sessions   []SessionInfo `json:"sessions"`
	NextCursor string        `json:"nextCursor,omitempty"`
}

type CloseSessionRequest struct {
	SessionID string `json:"sessionId"`
}

type SetSessionModeRequest struct {
	SessionID string `json:"sessionId"`
	ModeID    string `json:"modeId"`
}

// SetSessionConfigOptionRequest carries a select value (a string). The
// boolean form is refused because cordis offers no boolean options.
type SetSessionConfigOptionRequest struct {
	SessionID string          `json:"sessionId"`
	ConfigID  string          `json:"configId"`
	Type      string          `json:"type,omitempty"`
	Value     json.RawMessage `json:"value"`
}

type SetSessionConfigOptionResponse struct {
	ConfigOptions []ConfigOption `json:"configOptions"`
}

type PromptRequest struct {
	SessionID string         `json:"sessionId"`
	Prompt    []ContentBlock `json:"prompt"`
}

type PromptResponse struct {
	StopReason StopReason `json:"stopReason"`
	// Usage is the turn's token use (unstable in ACP; clients that do not
	// know it ignore it).
	Usage *Usage `json:"usage,omitempty"`
}

// Usage counts a turn's tokens. InputTokens excludes the cached ones;
// TotalTokens is the sum of all.
type Usage struct {
	TotalTokens       int64 `json:"totalTokens"`
	InputTokens       int64 `json:"inputTokens"`
	OutputTokens      int64 `json:"outputTokens"`
	ThoughtTokens     int64 `json:"thoughtTokens,omitempty"`
	CachedReadTokens  int64 `json:"cachedReadTokens,omitempty"`
	CachedWriteTokens int64 `json:"cachedWriteTokens,omitempty"`
}

// MethodSessionFork is unstable in ACP, so the generator (which reads the
// stable schema) does not know it.
const MethodSessionFork = "session/fork"

// ForkSessionRequest copies a session into a new one
// (sessionCapabilities.fork).
type ForkSessionRequest struct {
	SessionID             string      `json:"sessionId"`
	Cwd                   string      `json:"cwd"`
	MCPServers            []MCPServer `json:"mcpServers,omitempty"`
	AdditionalDirectories []string    `json:"additionalDirectories,omitempty"`
}

type ForkSessionResponse struct {
	SessionID     string            `json:"sessionId"`
	Modes         *SessionModeState `json:"modes,omitempty"`
	ConfigOptions []ConfigOption    `json:"configOptions,omitempty"`
}

type CancelNotification struct {
	SessionID string `json:"sessionId"`
}
