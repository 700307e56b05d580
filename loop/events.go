package loop

import (
	"encoding/json"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/sessionlog"
)

// The session log is the truth (docs/design.md): every event the loop
// writes is one of the types below, and session/load reads it back with
// the same type (events_test.go round-trips every kind). A change to a
// type is a change to the log format; keep old logs loading.

// logEvent is one event the loop writes to a session log.
type logEvent interface {
	// logType is the event's type in the log (sessionlog.Type*).
	logType() string
}

// sessionStartEvent opens a new session's log.
type sessionStartEvent struct {
	SessionID             string   `json:"sessionId"`
	Cwd                   string   `json:"cwd"`
	AdditionalDirectories []string `json:"additionalDirectories,omitempty"`
	Model                 string   `json:"model"`
	Mode                  string   `json:"mode"`
}

// sessionLoadEvent marks a session reopened by session/load (or, with
// Resumed, session/resume) in a new process.
type sessionLoadEvent struct {
	Cwd      string   `json:"cwd"`
	Events   int      `json:"events"`
	Warnings []string `json:"warnings"`
	Resumed  bool     `json:"resumed,omitempty"`
}

// titleEvent names the thread (title.go); the latest one holds.
type titleEvent struct {
	Title string `json:"title"`
}

// turnStartEvent opens a turn; Prompt is a summary of what was typed.
type turnStartEvent struct {
	TurnID string `json:"turnId"`
	Prompt string `json:"prompt"`
}

// userPromptEvent keeps the prompt's blocks as the editor sent them, to
// show them again on load.
type userPromptEvent struct {
	TurnID  string             `json:"turnId"`
	Content []acp.ContentBlock `json:"content"`
}

// turnEndEvent closes a turn with the stop reason the editor was given.
type turnEndEvent struct {
	TurnID     string         `json:"turnId"`
	StopReason acp.StopReason `json:"stopReason"`
}

// turnRejectedEvent: UserPromptSubmit blocked the prompt.
type turnRejectedEvent struct {
	TurnID string `json:"turnId"`
	Reason string `json:"reason"`
}

// streamTextEvent is model text as it streamed, written in batches before
// the message that holds it all (streamlog.go); load shows it only when no
// message followed (a crash cut the stream).
type streamTextEvent struct {
	Text string `json:"text"`
}

// messageEvent is one message of the model's history. ToolOutputs
// names the tool calls whose output the message leaves to their
// tool/result events (logonce.go; log version 2).
type messageEvent struct {
	llm.Message
	ToolOutputs []string `json:"toolOutputs,omitempty"`
}

// LogVersion: a message that names outputs needs a reader that puts
// them back.
func (m messageEvent) LogVersion() int {
	if len(m.ToolOutputs) > 0 {
		return 2
	}
	return 1
}

// LogVersion: a result without its content needs a reader that derives
// it from the output.
func (t toolResultLogEvent) LogVersion() int {
	if t.Content == nil && t.Output != "" {
		return 2
	}
	return 1
}

// agentTextEvent is text cordis itself showed the user (not the model's).
type agentTextEvent struct {
	Text string `json:"text"`
}

// modelRequestEvent records a model request of a turn.
type modelRequestEvent struct {
	Model    string   `json:"model"`
	Messages int      `json:"messages"`
	Tools    []string `json:"tools"`
}

// modelResponseEvent records a model response of a turn; Partial when an
// error cut it short (its usage is then not counted).
type modelResponseEvent struct {
	StopReason llm.StopReason `json:"stopReason"`
	Usage      llm.Usage      `json:"usage"`
	Model      string         `json:"model"`
	Partial    bool           `json:"partial"`
}

// sideCallRequestEvent and sideCallResponseEvent record a model call made
// beside the conversation, billed like any other: a compaction's summary,
// a web search, a WebFetch page question. Purpose says which.
const (
	sideCallCompaction = "compaction"
	sideCallWebSearch  = "web_search"
	sideCallWebFetch   = "web_fetch"
)

// sideCallKeepsContext reports whether a logged side call of this
// purpose left the conversation's context as it was (so that a reload
// restores the context meter as the live session showed it): a
// compaction's summary replaces the context; a web search or a page
// question is not part of it.
func sideCallKeepsContext(purpose string) bool { return purpose != sideCallCompaction }

type sideCallRequestEvent struct {
	Model    string `json:"model"`
	Messages int    `json:"messages"`
	Purpose  string `json:"purpose"`
}

type sideCallResponseEvent struct {
	StopReason llm.StopReason `json:"stopReason"`
	Usage      llm.Usage      `json:"usage"`
	Model      string         `json:"model"`
	Purpose    string         `json:"purpose"`
}

// modelErrorEvent: the model request failed.
type modelErrorEvent struct {
	Error string        `json:"error"`
	Kind  llm.ErrorKind `json:"kind"`
}

// toolCallEvent announces a tool call (toolEvent is its data).
type toolCallEvent struct{ toolEvent }

// toolResultLogEvent ends a tool call (toolResultEvent is its data).
type toolResultLogEvent struct{ toolResultEvent }

// permissionEvent is the permission flow's verdict for one call.
type permissionEvent struct{ verdict }

// planEvent is a TodoWrite plan, as shown to the editor.
type planEvent []acp.PlanEntry

// modeChangeEvent: the session's permission mode changed.
type modeChangeEvent struct {
	Mode string `json:"mode"`
}

// configChangeEvent: a session config option (the model) changed.
type configChangeEvent struct {
	ConfigID string `json:"configId"`
	Value    string `json:"value"`
}

// steeringEvent: a Stop hook blocked the end of a turn and its reason went
// back to the model.
type steeringEvent struct {
	Event  string `json:"event"`
	Reason string `json:"reason"`
	Blocks int    `json:"blocks"`
}

// steeringCappedEvent: Stop hooks blocked too many times in a row; the turn
// ended anyway.
type steeringCappedEvent struct {
	Capped  bool   `json:"capped"`
	Blocks  int    `json:"blocks"`
	Message string `json:"message"`
}

// subagentStartEvent and subagentEndEvent bracket a Task subagent (its own
// events are in its own log).
type subagentStartEvent struct {
	AgentID     string `json:"agentId"`
	ToolCallID  string `json:"toolCallId"`
	AgentType   string `json:"agentType"`
	Description string `json:"description"`
}

type subagentEndEvent struct {
	AgentID    string         `json:"agentId"`
	StopReason acp.StopReason `json:"stopReason"`
}

// commandEvent: a slash command was typed.
type commandEvent struct {
	Name  string `json:"name"`
	Args  string `json:"args"`
	Known bool   `json:"known"`
}

// hookToggleEvent: /hooks enable|disable NAME.
type hookToggleEvent struct {
	Name   string `json:"name"`
	Action string `json:"action"`
	Hook   string `json:"hook"`
}

// clearEvent: /clear dropped the model's context.
type clearEvent struct {
	MessagesDropped int `json:"messagesDropped"`
}

// compactionEvent: the history was replaced by Summary.
// Kept is how many messages at the end of the history stayed as they were
// (a compaction in the middle of a turn); ID names it to the editor, and
// Reason says why an automatic one ran. Events without an ID (older
// logs) were shown as logged text.
type compactionEvent struct {
	ID             string `json:"id,omitempty"`
	Summary        string `json:"summary"`
	MessagesBefore int    `json:"messagesBefore"`
	Kept           int    `json:"kept,omitempty"`
	Trigger        string `json:"trigger"`
	Instructions   string `json:"instructions"`
	Reason         string `json:"reason,omitempty"`
}

// truncateEvent: the history was cut back to its first Keep messages (a
// refused prompt is dropped), so load cuts it too.
type truncateEvent struct {
	Keep int `json:"keep"`
}

// Notices: things worth knowing when reading a log, which load ignores.
type (
	turnStoppedNotice struct {
		Kind   string `json:"kind"` // turnStopped
		Reason string `json:"reason"`
	}
	compactionRequestedNotice struct {
		Kind          string `json:"kind"` // compactionRequested
		ContextTokens int    `json:"contextTokens"`
		ContextWindow int    `json:"contextWindow"`
	}
	// compactionFailedNotice: a compaction failed or was cancelled, the
	// history unchanged (load shows it again).
	compactionFailedNotice struct {
		Kind   string               `json:"kind"` // compactionFailed
		ID     string               `json:"id"`
		Status acp.CompactionStatus `json:"status"`
		Error  string               `json:"error"`
	}
	mcpServersNotice struct {
		Kind    string         `json:"kind"` // mcpServers
		Servers []serverStatus `json:"servers"`
	}
	sessionStartSkippedNotice struct {
		Kind    string `json:"kind"` // sessionStartSkipped
		Message string `json:"message"`
	}
	mcpUnavailableNotice struct {
		Kind    string `json:"kind"` // mcpUnavailable
		Message string `json:"message"`
	}
	// asyncHookNotice: a hook that ran in the background finished; its
	// Context went into the model's next request (in a logged message).
	asyncHookNotice struct {
		Kind    string   `json:"kind"` // asyncHook
		Event   string   `json:"event"`
		Hook    string   `json:"hook"`
		Context []string `json:"context,omitempty"`
		Wake    bool     `json:"wake,omitempty"`
		Failure string   `json:"failure,omitempty"`
	}
)

// serverStatus is one MCP server in an mcpServers notice.
type serverStatus struct {
	Name      string `json:"name"`
	Transport string `json:"transport"`
	OK        bool   `json:"ok"`
	Tools     int    `json:"tools"`
	Prompts   int    `json:"prompts"`
	Error     string `json:"error,omitempty"`
}

func (sessionStartEvent) logType() string         { return sessionlog.TypeSessionStart }
func (sessionLoadEvent) logType() string          { return sessionlog.TypeSessionLoad }
func (turnStartEvent) logType() string            { return sessionlog.TypeTurnStart }
func (titleEvent) logType() string                { return sessionlog.TypeSessionTitle }
func (userPromptEvent) logType() string           { return sessionlog.TypeUserPrompt }
func (turnEndEvent) logType() string              { return sessionlog.TypeTurnEnd }
func (turnRejectedEvent) logType() string         { return sessionlog.TypeTurnRejected }
func (messageEvent) logType() string              { return sessionlog.TypeMessage }
func (agentTextEvent) logType() string            { return sessionlog.TypeAgentText }
func (streamTextEvent) logType() string           { return sessionlog.TypeStreamText }
func (modelRequestEvent) logType() string         { return sessionlog.TypeModelRequest }
func (modelResponseEvent) logType() string        { return sessionlog.TypeModelResponse }
func (sideCallRequestEvent) logType() string      { return sessionlog.TypeModelRequest }
func (sideCallResponseEvent) logType() string     { return sessionlog.TypeModelResponse }
func (modelErrorEvent) logType() string           { return sessionlog.TypeModelError }
func (toolCallEvent) logType() string             { return sessionlog.TypeToolCall }
func (toolResultLogEvent) logType() string        { return sessionlog.TypeToolResult }
func (permissionEvent) logType() string           { return sessionlog.TypePermission }
func (planEvent) logType() string                 { return sessionlog.TypePlan }
func (modeChangeEvent) logType() string           { return sessionlog.TypeModeChange }
func (configChangeEvent) logType() string         { return sessionlog.TypeConfigChange }
func (steeringEvent) logType() string             { return sessionlog.TypeSteering }
func (steeringCappedEvent) logType() string       { return sessionlog.TypeSteering }
func (subagentStartEvent) logType() string        { return sessionlog.TypeSubagentStart }
func (subagentEndEvent) logType() string          { return sessionlog.TypeSubagentEnd }
func (commandEvent) logType() string              { return sessionlog.TypeCommand }
func (hookToggleEvent) logType() string           { return sessionlog.TypeCommand }
func (clearEvent) logType() string                { return sessionlog.TypeClear }
func (compactionEvent) logType() string           { return sessionlog.TypeCompaction }
func (truncateEvent) logType() string             { return sessionlog.TypeTruncate }
func (turnStoppedNotice) logType() string         { return sessionlog.TypeNotice }
func (compactionRequestedNotice) logType() string { return sessionlog.TypeNotice }
func (compactionFailedNotice) logType() string    { return sessionlog.TypeNotice }
func (mcpServersNotice) logType() string          { return sessionlog.TypeNotice }
func (mcpUnavailableNotice) logType() string      { return sessionlog.TypeNotice }
func (logRecoveredNotice) logType() string        { return sessionlog.TypeNotice }
func (sessionStartSkippedNotice) logType() string { return sessionlog.TypeNotice }
func (asyncHookNotice) logType() string           { return sessionlog.TypeNotice }

// decodeEvent reads an event's data into the type that wrote it.
func decodeEvent[T logEvent](ev sessionlog.Event) (T, bool) {
	var v T
	return v, json.Unmarshal(ev.Data, &v) == nil
}
