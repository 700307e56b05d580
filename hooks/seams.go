package hooks

import (
	"context"
	"encoding/json"
	"time"

	"github.com/cordis-agent/cordis/llm"
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
	PostCompact        Event = "PostCompact"
	SessionEnd         Event = "SessionEnd"
	Notification       Event = "Notification"
	// Interrupt is Codex's: the user cancelled a running turn. Claude
	// Code has no such event.
	Interrupt Event = "Interrupt"

	// The in-process seams below have no Claude Code or Codex equivalent:
	// only Go hooks (built-ins) register on them, and bridges never render
	// them. Their order within one step of the loop is LoopStart,
	// PrepareRequest, LLMRequest, LLMResponse, then (when the model called
	// tools) ProcessToolCalls and, per call, PreToolUse ... PostToolUse,
	// then LoopEnd; Stop follows LoopEnd when the model ended its turn.

	// LoopStart opens one step of the loop (one model request and the tool
	// calls it makes). StopTurn ends the turn before the request is sent.
	LoopStart Event = "LoopStart"
	// PrepareRequest may replace the system prompt (Decision.System) and the
	// tool list (Decision.Tools) of one request.
	PrepareRequest Event = "PrepareRequest"
	// LLMRequest observes the request about to be sent.
	LLMRequest Event = "LLMRequest"
	// LLMResponse observes the model's answer (or its failure, in Error).
	LLMResponse Event = "LLMResponse"
	// ProcessToolCalls sees the whole batch of tool calls of one response
	// and may supply their results instead of running them
	// (Decision.ToolResults).
	ProcessToolCalls Event = "ProcessToolCalls"
	// LoopEnd closes one step.
	LoopEnd Event = "LoopEnd"
)

// InProcessOnly reports whether e is a seam only Go hooks register on.
func InProcessOnly(e Event) bool {
	switch e {
	case LoopStart, PrepareRequest, LLMRequest, LLMResponse, ProcessToolCalls, LoopEnd:
		return true
	}
	return false
}

// Input is what the loop knows at a seam. Only the fields of the Event are
// set; bridges render it in their dialect.
type Input struct {
	Event          Event  `json:"hook_event_name"`
	SessionID      string `json:"session_id"`
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
	AgentID   string `json:"agent_id,omitempty"`
	AgentType string `json:"agent_type,omitempty"`

	// SessionLogPath is the session's log (package sessionlog; every
	// seam), and AgentLogPath, inside a subagent (its seams, SubagentStart
	// and SubagentStop included), the subagent's own log. A dialect
	// renders its view of the conversation (the file its hooks read as
	// transcript_path) from them.
	SessionLogPath string `json:"-"`
	AgentLogPath   string `json:"-"`

	// PreCompact, PostCompact: manual | auto.
	Trigger            string `json:"trigger,omitempty"`
	CustomInstructions string `json:"custom_instructions,omitempty"`
	// PostCompact: the summary that replaced the conversation.
	CompactSummary string `json:"compact_summary,omitempty"`
	// PermissionRequest: what the user could grant instead of answering
	// once (the "Always allow" rule the editor offers, a mode), as Claude
	// Code suggests it to its hooks.
	PermissionSuggestions []PermissionUpdate `json:"permission_suggestions,omitempty"`
	// SessionEnd.
	Reason string `json:"reason,omitempty"`
	// Notification.
	Message          string `json:"message,omitempty"`
	NotificationType string `json:"notification_type,omitempty"`

	// The fields below are for Go hooks only: bridges never render them.

	// ToolOutput is the tool's result text as the model would see it
	// (PostToolUse, PostToolUseFailure); ToolResponse / Error carry the
	// same text in the dialect shape.
	ToolOutput string `json:"-"`
	// Duration is how long the tool ran (PostToolUse*).
	Duration time.Duration `json:"-"`
	// ToolCalls are the tool_use blocks of one response (ProcessToolCalls).
	ToolCalls []llm.Block `json:"-"`
	// Request is the model request being prepared (PrepareRequest) or
	// about to be sent (LLMRequest). Hooks must not change it in place:
	// they return replacements in Decision.System / Decision.Tools.
	Request *llm.Request `json:"-"`
	// Response is the model's answer (LLMResponse); nil when the request
	// failed (Error says why) before anything was assembled.
	Response *llm.Response `json:"-"`
	// Step counts the model requests of this turn from 0 (LoopStart,
	// PrepareRequest, LLMRequest, LLMResponse, ProcessToolCalls, LoopEnd).
	Step int `json:"-"`
	// ContextWindow is the model's context window in tokens (every seam).
	ContextWindow int `json:"-"`
	// Directories are the directories the session's tools may use, the
	// working directory first (every seam; nil outside a session).
	Directories []string `json:"-"`
	// Totals is what the session has spent so far (every seam).
	Totals Totals `json:"-"`

	// Meta is shared by the hooks of one Run, in pipeline order: an earlier
	// hook can leave a value for a later one.
	Meta Metadata `json:"-"`
	// Record, when set, appends an event to the session log of the agent
	// the seam runs for (the subagent's own log for subagent seams). The
	// pipeline writes hook/start, hook/result and hook/error through it.
	Record func(typ string, data any) `json:"-"`
	// Later, when set, takes the work and the late output of hooks that
	// run in the background (async hooks); see Later.
	Later Later `json:"-"`
}

// Totals is a session's cumulative model usage, subagents included.
type Totals struct {
	// Requests counts model responses.
	Requests int
	// Tokens is every token billed: input, output, cache writes and reads.
	Tokens int64
	// CostUSD is the cost in US dollars; CostKnown is false when a
	// response came from a model without a known price (CostUSD then
	// covers only the priced ones).
	CostUSD   float64
	CostKnown bool
}

// Metadata is a small key-value store shared by the hooks of one Run. The
// zero value is empty and ready; it allocates only when first set. It is
// not safe for concurrent use (the hooks of one Run run one after another).
type Metadata struct {
	m map[string]any
}

// Get returns the value stored under key.
func (m *Metadata) Get(key string) (any, bool) {
	v, ok := m.m[key]
	return v, ok
}

// Set stores value under key.
func (m *Metadata) Set(key string, value any) {
	if m.m == nil {
		m.m = make(map[string]any, 4)
	}
	m.m[key] = value
}

// ToolResponseJSON is the dialect-neutral ToolResponse of a successful tool
// call: {"output": text}.
func ToolResponseJSON(text string) json.RawMessage {
	b, _ := json.Marshal(struct {
		Output string `json:"output"`
	}{text})
	return b
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
	// ReadOnlyConfined (PreToolUse, with Allow) makes the allow hold only
	// if the Bash command runs in the read-only sandbox: the built-in
	// allowance for read-only commands, whose parse of the command is a
	// first filter, not the boundary. One such allow confines the call.
	ReadOnlyConfined bool
	// UpdatedInput replaces the tool input (PreToolUse, PermissionRequest).
	UpdatedInput json.RawMessage
	// UpdatedPermissions (PermissionRequest, with Allow) are permission
	// changes the hook grants with its answer, in hook order.
	UpdatedPermissions []PermissionUpdate
	// ReplaceResult, when non-nil, replaces the tool result the model sees
	// (PostToolUse).
	ReplaceResult *string
	// AdditionalContext is added to the model's context, in hook order.
	AdditionalContext []string
	// SystemMessages are shown to the user, not the model.
	SystemMessages []string
	// StopTurn ends the turn at once (`continue: false`), with
	// StopReason shown to the user. On PostCompact the compaction stands
	// and the turn ends after it.
	StopTurn   bool
	StopReason string

	// Skip ends the pipeline after this hook: the hooks after it do not
	// run for this call. The merged Decision never has Skip set.
	Skip bool

	// SystemContext (SessionStart) is appended to the system prompt of
	// every model request of the session, main agent and subagents alike,
	// until the next SessionStart replaces it: the system prompt stays
	// stable (and cacheable) for the whole session.
	SystemContext []string
	// ShellEnv (SessionStart) are shell scripts (export lines, as Claude
	// Code's CLAUDE_ENV_FILE holds) that every later Bash command of the
	// session runs first, in hook order.
	ShellEnv []string
	// System (PrepareRequest), when non-nil, replaces the system prompt
	// blocks of this one request.
	System []string
	// Tools (PrepareRequest), when non-nil, replaces the tools offered in
	// this one request (an empty non-nil slice offers none).
	Tools []llm.ToolSpec
	// ToolResults (ProcessToolCalls) answers tool calls without running
	// them: a call whose ToolUseID has a result here is not run (no
	// PreToolUse, permission or PostToolUse); the others run as usual.
	ToolResults []ToolResult
	// Compact (LLMResponse and others) asks for the conversation to be
	// compacted; the loop records the request as a notice.
	Compact bool
}

// PermissionUpdate is a change of the session's permissions, in Claude
// Code's terms: a PermissionRequest suggestion, or what a hook's answer
// grants (Decision.UpdatedPermissions).
type PermissionUpdate struct {
	// Type is "addRules" or "setMode".
	Type string `json:"type"`
	// Rules are permission rules in Claude Code's syntax (`Bash(npm
	// test:*)`), with Behavior allow, deny or ask (addRules).
	Rules    []string `json:"rules,omitempty"`
	Behavior string   `json:"behavior,omitempty"`
	// Mode is the permission mode to switch to (setMode).
	Mode string `json:"mode,omitempty"`
	// Destination is where the change is kept: "session", or a settings
	// file ("localSettings", "projectSettings", "userSettings").
	Destination string `json:"destination"`
}

// ToolResult is a tool call result supplied by a ProcessToolCalls hook.
type ToolResult struct {
	ToolUseID string `json:"toolUseId"`
	Output    string `json:"output"`
	IsError   bool   `json:"isError,omitempty"`
}

// Seams is how the loop calls hooks. Run never fails: a hook that errors
// is logged by the implementation and contributes nothing. Run may update
// in as hooks modify it (ToolInput, ToolOutput, Request), so the caller
// must pass a fresh Input for every call; it must honour the returned
// Decision, not read the changes back from in.
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

// Applicable is an optional interface of a Hook. A pipeline calls Applies
// before Run and, when it reports false, neither runs the hook nor records
// anything for it: a bridge whose config has no command matching the input
// (or no config file at all) leaves no trace. Applies must be cheap and
// safe for concurrent use.
type Applicable interface {
	Applies(in *Input) bool
}

// RegisterOptions place a hook in a seam's pipeline.
type RegisterOptions struct {
	// Priority orders hooks: lower runs first, ties in registration order.
	// The built-ins use 10..90 (see package builtin).
	Priority int
	// Disabled registers the hook switched off; Enable switches it on.
	Disabled bool
	// Policy, when set, is an administrator's say over switching the hook
	// (/hooks): it returns why the hook may not be switched on (on true)
	// or off, or "" to let it. Enable and Disable leave such a hook as it
	// is; Pipeline.Refusal tells why.
	Policy func(on bool) string
}

// Registrar is what plugins (bridges, built-ins) register their hooks on.
type Registrar interface {
	Register(event Event, h Hook, opts RegisterOptions)
}
