package acp

import (
	"encoding/json"
	"fmt"
)

// ProtocolVersion is the ACP version cordis speaks.
const ProtocolVersion = 1

// Method names, both directions.
const (
	MethodInitialize             = "initialize"
	MethodAuthenticate           = "authenticate"
	MethodLogout                 = "logout"
	MethodSessionNew             = "session/new"
	MethodSessionLoad            = "session/load"
	MethodSessionResume          = "session/resume"
	MethodSessionList            = "session/list"
	MethodSessionClose           = "session/close"
	MethodSessionDelete          = "session/delete"
	MethodSessionSetMode         = "session/set_mode"
	MethodSessionSetConfigOption = "session/set_config_option"
	MethodSessionPrompt          = "session/prompt"
	MethodSessionCancel          = "session/cancel"
	MethodCancelRequest          = "$/cancel_request"

	MethodSessionUpdate            = "session/update"
	MethodSessionRequestPermission = "session/request_permission"
	MethodFSReadTextFile           = "fs/read_text_file"
	MethodFSWriteTextFile          = "fs/write_text_file"
	MethodTerminalCreate           = "terminal/create"
	MethodTerminalOutput           = "terminal/output"
	MethodTerminalWaitForExit      = "terminal/wait_for_exit"
	MethodTerminalKill             = "terminal/kill"
	MethodTerminalRelease          = "terminal/release"
	MethodElicitationCreate        = "elicitation/create"
)

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

// Notices reports whether the client accepts `notice` updates.
func (c ClientCapabilities) Notices() bool { return c.Session != nil && c.Session.Notices != nil }

// ElicitationForm reports whether the client takes form elicitations
// (elicitation/create in form mode).
func (c ClientCapabilities) ElicitationForm() bool {
	return c.Elicitation != nil && c.Elicitation.Form != nil
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
}

type AgentCapabilities struct {
	LoadSession         bool                `json:"loadSession"`
	PromptCapabilities  PromptCapabilities  `json:"promptCapabilities"`
	MCPCapabilities     MCPCapabilities     `json:"mcpCapabilities"`
	SessionCapabilities SessionCapabilities `json:"sessionCapabilities"`
}

// AuthMethod is an agent-handled authentication method.
type AuthMethod struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
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
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd"`
	Title     string `json:"title,omitempty"`
	UpdatedAt string `json:"updatedAt,omitempty"`
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

// StopReason ends a prompt turn.
type StopReason string

const (
	StopEndTurn         StopReason = "end_turn"
	StopMaxTokens       StopReason = "max_tokens"
	StopMaxTurnRequests StopReason = "max_turn_requests"
	StopRefusal         StopReason = "refusal"
	StopCancelled       StopReason = "cancelled"
)

type PromptResponse struct {
	StopReason StopReason `json:"stopReason"`
}

type CancelNotification struct {
	SessionID string `json:"sessionId"`
}

// Annotations on content.
type Annotations struct {
	Audience     []string `json:"audience,omitempty"`
	LastModified string   `json:"lastModified,omitempty"`
	Priority     *float64 `json:"priority,omitempty"`
}

// EmbeddedResource is a text or blob resource.
type EmbeddedResource struct {
	URI      string  `json:"uri"`
	MimeType string  `json:"mimeType,omitempty"`
	Text     *string `json:"text,omitempty"`
	Blob     *string `json:"blob,omitempty"`
}

// ContentBlock is ACP's (MCP-compatible) content union, flattened; Type
// selects which fields are meaningful.
type ContentBlock struct {
	Type string `json:"type"`
	// text
	Text string `json:"text,omitempty"`
	// image, audio
	Data     string `json:"data,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
	// image, resource_link
	URI string `json:"uri,omitempty"`
	// resource_link
	Name        string `json:"name,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Size        *int64 `json:"size,omitempty"`
	// resource
	Resource    *EmbeddedResource `json:"resource,omitempty"`
	Annotations *Annotations      `json:"annotations,omitempty"`
}

// MarshalJSON keeps `text` present on text blocks even when empty (the
// schema requires it).
func (b ContentBlock) MarshalJSON() ([]byte, error) {
	type plain ContentBlock
	if b.Type == "text" && b.Text == "" {
		return json.Marshal(struct {
			Type        string       `json:"type"`
			Text        string       `json:"text"`
			Annotations *Annotations `json:"annotations,omitempty"`
		}{b.Type, b.Text, b.Annotations})
	}
	return json.Marshal(plain(b))
}

// TextBlock returns a text content block.
func TextBlock(s string) ContentBlock { return ContentBlock{Type: "text", Text: s} }

// ToolKind values.
type ToolKind string

const (
	ToolKindRead       ToolKind = "read"
	ToolKindEdit       ToolKind = "edit"
	ToolKindDelete     ToolKind = "delete"
	ToolKindMove       ToolKind = "move"
	ToolKindSearch     ToolKind = "search"
	ToolKindExecute    ToolKind = "execute"
	ToolKindThink      ToolKind = "think"
	ToolKindFetch      ToolKind = "fetch"
	ToolKindSwitchMode ToolKind = "switch_mode"
	ToolKindOther      ToolKind = "other"
)

// ToolCallStatus values.
type ToolCallStatus string

const (
	ToolStatusPending    ToolCallStatus = "pending"
	ToolStatusInProgress ToolCallStatus = "in_progress"
	ToolStatusCompleted  ToolCallStatus = "completed"
	ToolStatusFailed     ToolCallStatus = "failed"
)

// ToolCallContent is content, a diff or an embedded terminal.
type ToolCallContent struct {
	Type string `json:"type"`
	// content
	Content *ContentBlock `json:"content,omitempty"`
	// diff
	Path    string  `json:"path,omitempty"`
	OldText *string `json:"oldText,omitempty"`
	NewText *string `json:"newText,omitempty"`
	// terminal
	TerminalID string `json:"terminalId,omitempty"`
}

// MarshalJSON writes `oldText: null` for a diff of a new file, as the
// schema describes.
func (c ToolCallContent) MarshalJSON() ([]byte, error) {
	type plain ToolCallContent
	if c.Type != "diff" {
		return json.Marshal(plain(c))
	}
	newText := ""
	if c.NewText != nil {
		newText = *c.NewText
	}
	return json.Marshal(struct {
		Type    string  `json:"type"`
		Path    string  `json:"path"`
		OldText *string `json:"oldText"`
		NewText string  `json:"newText"`
	}{c.Type, c.Path, c.OldText, newText})
}

// ContentText wraps text as tool call content.
func ContentText(s string) ToolCallContent {
	b := TextBlock(s)
	return ToolCallContent{Type: "content", Content: &b}
}

// DiffContent is a diff; oldText nil means a new file.
func DiffContent(path string, oldText *string, newText string) ToolCallContent {
	return ToolCallContent{Type: "diff", Path: path, OldText: oldText, NewText: &newText}
}

// TerminalContent embeds a client terminal.
func TerminalContent(id string) ToolCallContent {
	return ToolCallContent{Type: "terminal", TerminalID: id}
}

type ToolCallLocation struct {
	Path string `json:"path"`
	Line *int   `json:"line,omitempty"`
}

// ToolCall is the `tool_call` update.
type ToolCall struct {
	ToolCallID string             `json:"toolCallId"`
	Title      string             `json:"title"`
	Kind       ToolKind           `json:"kind,omitempty"`
	Status     ToolCallStatus     `json:"status,omitempty"`
	Content    []ToolCallContent  `json:"content,omitempty"`
	Locations  []ToolCallLocation `json:"locations,omitempty"`
	RawInput   json.RawMessage    `json:"rawInput,omitempty"`
	RawOutput  json.RawMessage    `json:"rawOutput,omitempty"`
}

// ToolCallUpdate is the `tool_call_update` update and the toolCall of a
// permission request: only changed fields are set.
type ToolCallUpdate struct {
	ToolCallID string             `json:"toolCallId"`
	Title      string             `json:"title,omitempty"`
	Kind       ToolKind           `json:"kind,omitempty"`
	Status     ToolCallStatus     `json:"status,omitempty"`
	Content    []ToolCallContent  `json:"content,omitempty"`
	Locations  []ToolCallLocation `json:"locations,omitempty"`
	RawInput   json.RawMessage    `json:"rawInput,omitempty"`
	RawOutput  json.RawMessage    `json:"rawOutput,omitempty"`
}

type PlanEntry struct {
	Content  string `json:"content"`
	Priority string `json:"priority"`
	Status   string `json:"status"`
}

type AvailableCommandInput struct {
	Hint string `json:"hint"`
}

type AvailableCommand struct {
	Name        string                 `json:"name"`
	Description string                 `json:"description"`
	Input       *AvailableCommandInput `json:"input,omitempty"`
}

type Cost struct {
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
}

// SessionUpdate is one `session/update` variant. The concrete types below
// implement it; the discriminator is added when marshalling.
type SessionUpdate interface {
	UpdateKind() string
}

type UserMessageChunk struct {
	Content   ContentBlock `json:"content"`
	MessageID string       `json:"messageId,omitempty"`
}
type AgentMessageChunk struct {
	Content   ContentBlock `json:"content"`
	MessageID string       `json:"messageId,omitempty"`
}
type AgentThoughtChunk struct {
	Content   ContentBlock `json:"content"`
	MessageID string       `json:"messageId,omitempty"`
}
type PlanUpdate struct {
	Entries []PlanEntry `json:"entries"`
}
type AvailableCommandsUpdate struct {
	AvailableCommands []AvailableCommand `json:"availableCommands"`
}
type CurrentModeUpdate struct {
	CurrentModeID string `json:"currentModeId"`
}
type ConfigOptionUpdate struct {
	ConfigOptions []ConfigOption `json:"configOptions"`
}
type SessionInfoUpdate struct {
	Title     *string `json:"title,omitempty"`
	UpdatedAt *string `json:"updatedAt,omitempty"`
}
type UsageUpdate struct {
	Used int64 `json:"used"`
	Size int64 `json:"size"`
	Cost *Cost `json:"cost,omitempty"`
}
type NoticeUpdate struct {
	Severity    string `json:"severity"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
}

func (UserMessageChunk) UpdateKind() string        { return "user_message_chunk" }
func (AgentMessageChunk) UpdateKind() string       { return "agent_message_chunk" }
func (AgentThoughtChunk) UpdateKind() string       { return "agent_thought_chunk" }
func (ToolCall) UpdateKind() string                { return "tool_call" }
func (ToolCallUpdate) UpdateKind() string          { return "tool_call_update" }
func (PlanUpdate) UpdateKind() string              { return "plan" }
func (AvailableCommandsUpdate) UpdateKind() string { return "available_commands_update" }
func (CurrentModeUpdate) UpdateKind() string       { return "current_mode_update" }
func (ConfigOptionUpdate) UpdateKind() string      { return "config_option_update" }
func (SessionInfoUpdate) UpdateKind() string       { return "session_info_update" }
func (UsageUpdate) UpdateKind() string             { return "usage_update" }
func (NoticeUpdate) UpdateKind() string            { return "notice" }

// SessionNotification is the params of `session/update`.
type SessionNotification struct {
	SessionID string
	Update    SessionUpdate
}

func (n SessionNotification) MarshalJSON() ([]byte, error) {
	body, err := json.Marshal(n.Update)
	if err != nil {
		return nil, err
	}
	// Prepend the discriminator so it reads first in transcripts.
	kind, _ := json.Marshal(n.Update.UpdateKind())
	update := append([]byte(`{"sessionUpdate":`), kind...)
	if len(body) > 2 {
		update = append(update, ',')
		update = append(update, body[1:]...)
	} else {
		update = append(update, '}')
	}
	// Assembled by hand: json.Marshal would re-validate update.
	id, err := json.Marshal(n.SessionID)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(id)+len(update)+24)
	out = append(out, `{"sessionId":`...)
	out = append(out, id...)
	out = append(out, `,"update":`...)
	out = append(out, update...)
	return append(out, '}'), nil
}

func (n *SessionNotification) UnmarshalJSON(data []byte) error {
	var raw struct {
		SessionID string          `json:"sessionId"`
		Update    json.RawMessage `json:"update"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	u, err := DecodeSessionUpdate(raw.Update)
	if err != nil {
		return err
	}
	n.SessionID, n.Update = raw.SessionID, u
	return nil
}

// DecodeSessionUpdate decodes one `update` object by its discriminator.
func DecodeSessionUpdate(data []byte) (SessionUpdate, error) {
	var head struct {
		Kind string `json:"sessionUpdate"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, err
	}
	var u SessionUpdate
	switch head.Kind {
	case "user_message_chunk":
		u = &UserMessageChunk{}
	case "agent_message_chunk":
		u = &AgentMessageChunk{}
	case "agent_thought_chunk":
		u = &AgentThoughtChunk{}
	case "tool_call":
		u = &ToolCall{}
	case "tool_call_update":
		u = &ToolCallUpdate{}
	case "plan":
		u = &PlanUpdate{}
	case "available_commands_update":
		u = &AvailableCommandsUpdate{}
	case "current_mode_update":
		u = &CurrentModeUpdate{}
	case "config_option_update":
		u = &ConfigOptionUpdate{}
	case "session_info_update":
		u = &SessionInfoUpdate{}
	case "usage_update":
		u = &UsageUpdate{}
	case "notice":
		u = &NoticeUpdate{}
	default:
		return nil, fmt.Errorf("unknown sessionUpdate %q", head.Kind)
	}
	if err := json.Unmarshal(data, u); err != nil {
		return nil, err
	}
	return u, nil
}

// PermissionOptionKind values.
const (
	PermAllowOnce    = "allow_once"
	PermAllowAlways  = "allow_always"
	PermRejectOnce   = "reject_once"
	PermRejectAlways = "reject_always"
)

type PermissionOption struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`
}

type RequestPermissionRequest struct {
	SessionID string             `json:"sessionId"`
	ToolCall  ToolCallUpdate     `json:"toolCall"`
	Options   []PermissionOption `json:"options"`
}

// PermissionOutcome is `{outcome: "cancelled"}` or `{outcome: "selected", optionId}`.
type PermissionOutcome struct {
	Outcome  string `json:"outcome"`
	OptionID string `json:"optionId,omitempty"`
}

type RequestPermissionResponse struct {
	Outcome PermissionOutcome `json:"outcome"`
}

// CreateElicitationRequest is a form elicitation tied to a session (and
// optionally a tool call): Mode is "form", RequestedSchema a flat object
// schema of primitive properties. URL mode and request-scoped
// elicitations are not sent.
type CreateElicitationRequest struct {
	SessionID       string          `json:"sessionId"`
	ToolCallID      string          `json:"toolCallId,omitempty"`
	Mode            string          `json:"mode"`
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema"`
	Meta            Meta            `json:"_meta,omitempty"`
}

// Elicitation actions.
const (
	ElicitationAccept  = "accept"
	ElicitationDecline = "decline"
	ElicitationCancel  = "cancel"
)

// CreateElicitationResponse is the user's answer: Content (an object) only
// with accept.
type CreateElicitationResponse struct {
	Action  string          `json:"action"`
	Content json.RawMessage `json:"content,omitempty"`
	Meta    Meta            `json:"_meta,omitempty"`
}

type ReadTextFileRequest struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	Line      *int   `json:"line,omitempty"`
	Limit     *int   `json:"limit,omitempty"`
}

type ReadTextFileResponse struct {
	Content string `json:"content"`
}

type WriteTextFileRequest struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	Content   string `json:"content"`
}

type CreateTerminalRequest struct {
	SessionID       string        `json:"sessionId"`
	Command         string        `json:"command"`
	Args            []string      `json:"args,omitempty"`
	Env             []EnvVariable `json:"env,omitempty"`
	Cwd             string        `json:"cwd,omitempty"`
	OutputByteLimit *int          `json:"outputByteLimit,omitempty"`
}

type CreateTerminalResponse struct {
	TerminalID string `json:"terminalId"`
}

type TerminalRequest struct {
	SessionID  string `json:"sessionId"`
	TerminalID string `json:"terminalId"`
}

type TerminalExitStatus struct {
	ExitCode *int    `json:"exitCode,omitempty"`
	Signal   *string `json:"signal,omitempty"`
}

type TerminalOutputResponse struct {
	Output     string              `json:"output"`
	Truncated  bool                `json:"truncated"`
	ExitStatus *TerminalExitStatus `json:"exitStatus,omitempty"`
}
