package codex

import (
	"cmp"
	"encoding/json"
	"strings"

	"github.com/cordis-agent/cordis/bridge/internal/engine"
	"github.com/cordis-agent/cordis/bridge/internal/rendering"
	"github.com/cordis-agent/cordis/hooks"
)

// nullable renders "" as JSON null (Codex's `string|null` fields).
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// renderInput builds the stdin JSON a Codex hook receives for in, with the
// tool already mapped to Codex's name and input (tv; nil for non-tool
// events). Field order and presence follow the Codex hooks page: common
// fields (session_id, transcript_path, cwd, hook_event_name, model), then
// permission_mode and turn_id on the events that carry them, then the
// event's own fields.
func renderInput(event string, in *hooks.Input, tv *toolView, paths rendering.Paths) ([]byte, error) {
	var o engine.Object
	o.Set("session_id", in.SessionID)
	o.Set("transcript_path", nullable(paths.Session))
	o.Set("cwd", in.Cwd)
	o.Set("hook_event_name", event)
	o.Set("model", in.Model)
	switch event {
	case evSessionStart, evPreToolUse, evPermissionRequest, evPostToolUse, evUserPromptSubmit,
		evSubagentStart, evSubagentStop, evStop, evInterrupt:
		o.Set("permission_mode", cmp.Or(in.PermissionMode, "default"))
	}
	switch event {
	case evSessionStart, evSessionEnd:
	default:
		o.Set("turn_id", in.TurnID)
	}
	// Inside a subagent, tool events say which agent made the call.
	if in.AgentID != "" {
		switch event {
		case evPreToolUse, evPermissionRequest, evPostToolUse:
			o.Set("agent_id", in.AgentID)
			if in.AgentType != "" {
				o.Set("agent_type", in.AgentType)
			}
		}
	}
	switch event {
	case evSessionStart:
		o.Set("source", cmp.Or(in.Source, "startup"))
	case evSessionEnd:
		// Codex always reports "other".
		o.Set("reason", "other")
	case evUserPromptSubmit:
		o.Set("prompt", in.Prompt)
	case evPreToolUse:
		o.Set("tool_name", tv.name)
		o.Set("tool_use_id", in.ToolUseID)
		o.Set("tool_input", tv.input)
	case evPermissionRequest:
		o.Set("tool_name", tv.name)
		o.Set("tool_input", tv.input)
	case evPostToolUse:
		o.Set("tool_name", tv.name)
		o.Set("tool_use_id", in.ToolUseID)
		o.Set("tool_input", tv.input)
		o.Set("tool_response", toolResponse(in))
	case evPreCompact, evPostCompact:
		// Codex sends no custom_instructions and no compact_summary.
		o.Set("trigger", cmp.Or(in.Trigger, "auto"))
	case evSubagentStart:
		o.Set("agent_id", in.AgentID)
		o.Set("agent_type", in.AgentType)
	case evSubagentStop:
		o.Set("agent_id", in.AgentID)
		o.Set("agent_type", in.AgentType)
		o.Set("agent_transcript_path", nullable(paths.Agent))
		o.Set("stop_hook_active", in.StopHookActive)
		o.Set("last_assistant_message", nullable(in.LastAssistantMessage))
	case evStop:
		o.Set("stop_hook_active", in.StopHookActive)
		o.Set("last_assistant_message", nullable(in.LastAssistantMessage))
	}
	return o.JSON(), nil
}

// toolResponse is the tool's output as Codex reports it to PostToolUse: the
// text the tool returned (for a failed call, its error text). cordis hands
// the seam {"output": text}; the bridge unwraps it.
func toolResponse(in *hooks.Input) any {
	if in.Event == hooks.PostToolUseFailure {
		return in.Error
	}
	var r struct {
		Output *string `json:"output"`
	}
	if len(in.ToolResponse) == 0 {
		return ""
	}
	if err := json.Unmarshal(in.ToolResponse, &r); err == nil && r.Output != nil {
		return *r.Output
	}
	return json.RawMessage(in.ToolResponse)
}

// matchValue is what a matcher group is tested against for event: the
// tool name (with aliases) on tool events, the source, trigger or agent
// type elsewhere. ok is false for the events whose matchers Codex
// ignores (UserPromptSubmit, Stop): every group runs.
func matchValues(event string, in *hooks.Input, tv *toolView) (vals []string, ok bool) {
	switch event {
	case evPreToolUse, evPermissionRequest, evPostToolUse:
		return append([]string{tv.name}, tv.aliases...), true
	case evSessionStart:
		return []string{cmp.Or(in.Source, "startup")}, true
	case evSessionEnd:
		return []string{"other"}, true
	case evPreCompact, evPostCompact:
		return []string{cmp.Or(in.Trigger, "auto")}, true
	case evSubagentStart, evSubagentStop:
		return []string{in.AgentType}, true
	}
	return nil, false
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
