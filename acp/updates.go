package acp

import (
	"encoding/json"
	"fmt"
)

// The `session/update` notification, its variants, and the content
// blocks and tool calls they carry.

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
	// encoded is Text's JSON encoding when known (EncodedTextBlock).
	encoded *encodedText
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
	Meta       Meta               `json:"_meta,omitempty"`
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
	Meta       Meta               `json:"_meta,omitempty"`
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

// CompactionUpdate creates a context compaction (its first update fixes
// its place in the thread) or patches the one of the same id. Send it
// only to a client that advertised session.compaction
// (ClientCapabilities.Compaction). Summary and Error replace what the
// client holds when present.
type CompactionUpdate struct {
	CompactionID string           `json:"compactionId"`
	Status       CompactionStatus `json:"status"`
	Summary      []ContentBlock   `json:"summary,omitempty"`
	Error        *string          `json:"error,omitempty"`
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
func (CompactionUpdate) UpdateKind() string        { return "compaction_update" }

// SessionNotification is the params of `session/update`.
type SessionNotification struct {
	SessionID string
	Update    SessionUpdate
}

func (n SessionNotification) MarshalJSON() ([]byte, error) {
	var body []byte
	var err error
	if u, ok := n.Update.(ToolCallUpdate); ok {
		// By hand: tool outputs are the bulk of the frames (rawtext.go).
		body, err = appendToolCallUpdate(nil, u)
	} else {
		body, err = json.Marshal(n.Update)
	}
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
	case "compaction_update":
		u = &CompactionUpdate{}
	default:
		return nil, fmt.Errorf("unknown sessionUpdate %q", head.Kind)
	}
	if err := json.Unmarshal(data, u); err != nil {
		return nil, err
	}
	return u, nil
}
