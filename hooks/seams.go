package hooks

import (
	"context"
	"encoding/json"
)

// Event names a seam. The names are Claude Code's, which both bridges map
// from.
type Event string

const (
	SessionStart       Event = "SessionStart"
	UserPromptSubmit   Event = "UserPromptSubmit"
	PreToolUse         Event = "PreToolUse"
	PermissionRequest  Event = "PermissionRequest"
	PostToolUse        Event = "PostToolUse"
	PostToolUseFailure Event = "PostToolUseFailure"
	Stop               Event = "Stop"
	SubagentStart      Event = "SubagentStart"
	SubagentStop       Event = "SubagentStop"
	PreCompact         Event = "PreCompact"
	SessionEnd         Event = "SessionEnd"
	Notification       Event = "Notification"
)

// Input is what the loop knows at a seam. Only the fields of the Event are
// set; bridges render it in their dialect.
type Input struct {
	Event          Event  `json:"hook_event_name"`
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path,omitempty"`
	Cwd            string `json:"cwd"`
	PermissionMode string `json:"permission_mode,omitempty"`
	Model          string `json:"model,omitempty"`
	TurnID         string `json:"turn_id,omitempty"`

	// SessionStart: startup | resume | clear | compact.
	Source string `json:"source,omitempty"`
	// UserPromptSubmit.
	Prompt string `json:"prompt,omitempty"`

	// Tool seams.
	ToolName     string          `json:"tool_name,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	ToolInput    json.RawMessage `json:"tool_input,omitempty"`
	ToolResponse json.RawMessage `json:"tool_response,omitempty"`
	Error        string          `json:"error,omitempty"`

	// Stop / SubagentStop.
	StopHookActive       bool   `json:"stop_hook_active,omitempty"`
	LastAssistantMessage string `json:"last_assistant_message,omitempty"`

	// Subagent seams.
	AgentID             string `json:"agent_id,omitempty"`
	AgentType           string `json:"agent_type,omitempty"`
	AgentTranscriptPath string `json:"agent_transcript_path,omitempty"`

	// PreCompact: manual | auto.
	Trigger            string `json:"trigger,omitempty"`
	CustomInstructions string `json:"custom_instructions,omitempty"`
	// SessionEnd.
	Reason string `json:"reason,omitempty"`
	// Notification.
	Message          string `json:"message,omitempty"`
	NotificationType string `json:"notification_type,omitempty"`
}

// Permission is a PreToolUse / PermissionRequest verdict.
type Permission string

const (
	NoOpinion Permission = ""
	Allow     Permission = "allow"
	Deny      Permission = "deny"
	Ask       Permission = "ask"
)

// Decision is the merged outcome of every hook on a seam. The zero value
// means "carry on as if no hook ran".
type Decision struct {
	// Permission (PreToolUse, PermissionRequest) with its Reason.
	Permission Permission
	// Block refuses what the seam guards: the prompt (UserPromptSubmit),
	// the end of the turn (Stop/SubagentStop: Reason steers the model),
	// compaction (PreCompact), or flags a tool result (PostToolUse*: Reason
	// is fed back to the model).
	Block  bool
	Reason string
	// UpdatedInput replaces the tool input (PreToolUse, PermissionRequest).
	UpdatedInput json.RawMessage
	// ReplaceResult, when non-nil, replaces the tool result the model sees
	// (PostToolUse).
	ReplaceResult *string
	// AdditionalContext is added to the model's context, in hook order.
	AdditionalContext []string
	// SystemMessages are shown to the user, not the model.
	SystemMessages []string
	// StopTurn ends the turn at once (`continue: false`), with
	// StopReason shown to the user.
	StopTurn   bool
	StopReason string
}

// Seams is how the loop calls hooks. Run never fails: a hook that errors
// is logged by the implementation and contributes nothing.
type Seams interface {
	Run(ctx context.Context, in *Input) Decision
}

// None is the Seams with no hooks.
type None struct{}

func (None) Run(context.Context, *Input) Decision { return Decision{} }

// Hook is one governance hook on one seam: a built-in, or a bridge that runs
// a dialect's external commands. Run returns the hook's own decision; an
// error (or a panic) is recorded as hook/error and the call goes on without
// this hook's opinion.
type Hook interface {
	Name() string
	Run(ctx context.Context, in *Input) (Decision, error)
}

// RegisterOptions place a hook in a seam's pipeline.
type RegisterOptions struct {
	// Priority orders hooks: lower runs first, ties in registration order.
	Priority int
}

// Registrar is what plugins (bridges, built-ins) register their hooks on.
type Registrar interface {
	Register(event Event, h Hook, opts RegisterOptions)
}
