package codex

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/cordis-agent/cordis/hooks"
)

// object is a JSON object that keeps its keys in the order they were set,
// so that hook input is byte-for-byte stable.
type object []field

type field struct {
	key string
	val any
}

func (o *object) set(key string, val any) { *o = append(*o, field{key, val}) }

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.key)
		b.Write(k)
		b.WriteByte(':')
		v, err := marshalNoEscape(f.val)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshalNoEscape encodes v without HTML escaping: hook scripts compare
// commands like `a && b` literally.
func marshalNoEscape(v any) ([]byte, error) {
	if raw, ok := v.(json.RawMessage); ok {
		if len(raw) == 0 {
			return []byte("null"), nil
		}
		return raw, nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

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
func renderInput(event string, in *hooks.Input, tv *toolView) ([]byte, error) {
	var o object
	o.set("session_id", in.SessionID)
	o.set("transcript_path", nullable(firstNonEmpty(in.CodexTranscriptPath, in.TranscriptPath)))
	o.set("cwd", in.Cwd)
	o.set("hook_event_name", event)
	o.set("model", in.Model)
	switch event {
	case evSessionStart, evPreToolUse, evPermissionRequest, evPostToolUse, evUserPromptSubmit,
		evSubagentStart, evSubagentStop, evStop:
		o.set("permission_mode", firstNonEmpty(in.PermissionMode, "default"))
	}
	switch event {
	case evSessionStart, evSessionEnd:
	default:
		o.set("turn_id", in.TurnID)
	}
	// Inside a subagent, tool events say which agent made the call.
	if in.AgentID != "" {
		switch event {
		case evPreToolUse, evPermissionRequest, evPostToolUse:
			o.set("agent_id", in.AgentID)
			if in.AgentType != "" {
				o.set("agent_type", in.AgentType)
			}
		}
	}
	switch event {
	case evSessionStart:
		o.set("source", firstNonEmpty(in.Source, "startup"))
	case evSessionEnd:
		// Codex always reports "other".
		o.set("reason", "other")
	case evUserPromptSubmit:
		o.set("prompt", in.Prompt)
	case evPreToolUse:
		o.set("tool_name", tv.name)
		o.set("tool_use_id", in.ToolUseID)
		o.set("tool_input", tv.input)
	case evPermissionRequest:
		o.set("tool_name", tv.name)
		o.set("tool_input", tv.input)
	case evPostToolUse:
		o.set("tool_name", tv.name)
		o.set("tool_use_id", in.ToolUseID)
		o.set("tool_input", tv.input)
		o.set("tool_response", toolResponse(in))
	case evPreCompact:
		o.set("trigger", firstNonEmpty(in.Trigger, "auto"))
	case evSubagentStart:
		o.set("agent_id", in.AgentID)
		o.set("agent_type", in.AgentType)
	case evSubagentStop:
		o.set("agent_id", in.AgentID)
		o.set("agent_type", in.AgentType)
		o.set("agent_transcript_path", nullable(firstNonEmpty(in.CodexAgentTranscriptPath, in.AgentTranscriptPath)))
		o.set("stop_hook_active", in.StopHookActive)
		o.set("last_assistant_message", nullable(in.LastAssistantMessage))
	case evStop:
		o.set("stop_hook_active", in.StopHookActive)
		o.set("last_assistant_message", nullable(in.LastAssistantMessage))
	}
	return o.MarshalJSON()
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
		return []string{firstNonEmpty(in.Source, "startup")}, true
	case evSessionEnd:
		return []string{"other"}, true
	case evPreCompact:
		return []string{firstNonEmpty(in.Trigger, "auto")}, true
	case evSubagentStart, evSubagentStop:
		return []string{in.AgentType}, true
	}
	return nil, false
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
