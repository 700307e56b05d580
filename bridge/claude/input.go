package claude

import (
	"bytes"
	"encoding/json"

	"github.com/cordis-agent/cordis/hooks"
)

// object writes a JSON object with its keys in insertion order, so that
// hooks see the fields in the order Claude Code documents them.
type object struct {
	buf bytes.Buffer
	n   int
}

func (o *object) add(key string, v any) {
	if o.n == 0 {
		o.buf.WriteByte('{')
	} else {
		o.buf.WriteByte(',')
	}
	o.n++
	k, _ := json.Marshal(key)
	o.buf.Write(k)
	o.buf.WriteByte(':')
	var b []byte
	switch x := v.(type) {
	case json.RawMessage:
		b = x
	default:
		var err error
		if b, err = json.Marshal(v); err != nil {
			b = []byte("null")
		}
	}
	o.buf.Write(b)
}

func (o *object) bytes() []byte {
	if o.n == 0 {
		return []byte("{}")
	}
	o.buf.WriteByte('}')
	return o.buf.Bytes()
}

// renderInput is the stdin of a Claude Code hook for in: the common fields
// (session_id, transcript_path, cwd, permission_mode, hook_event_name),
// agent_id/agent_type inside subagents, then the event's own fields, each
// present even when empty where Claude Code always sends it.
func renderInput(in *hooks.Input) []byte {
	var o object
	o.add("session_id", in.SessionID)
	o.add("transcript_path", in.TranscriptPath)
	o.add("cwd", in.Cwd)
	if in.PermissionMode != "" {
		o.add("permission_mode", in.PermissionMode)
	}
	o.add("hook_event_name", string(in.Event))
	switch in.Event {
	case hooks.SubagentStart, hooks.SubagentStop:
	default:
		if in.AgentID != "" {
			o.add("agent_id", in.AgentID)
		}
		if in.AgentType != "" {
			o.add("agent_type", in.AgentType)
		}
	}
	toolInput := in.ToolInput
	if len(toolInput) == 0 {
		toolInput = json.RawMessage("{}")
	}
	switch in.Event {
	case hooks.SessionStart:
		o.add("source", in.Source)
		if in.Model != "" {
			o.add("model", in.Model)
		}
	case hooks.UserPromptSubmit:
		o.add("prompt", in.Prompt)
	case hooks.PreToolUse:
		o.add("tool_name", in.ToolName)
		o.add("tool_input", toolInput)
		o.add("tool_use_id", in.ToolUseID)
	case hooks.PermissionRequest:
		o.add("tool_name", in.ToolName)
		o.add("tool_input", toolInput)
	case hooks.PostToolUse:
		o.add("tool_name", in.ToolName)
		o.add("tool_input", toolInput)
		o.add("tool_response", toolResponse(in.ToolName, toolInput, in.ToolResponse))
		o.add("tool_use_id", in.ToolUseID)
	case hooks.PostToolUseFailure:
		o.add("tool_name", in.ToolName)
		o.add("tool_input", toolInput)
		o.add("tool_use_id", in.ToolUseID)
		o.add("error", in.Error)
		o.add("is_interrupt", false)
	case hooks.Stop:
		o.add("stop_hook_active", in.StopHookActive)
		o.add("last_assistant_message", in.LastAssistantMessage)
	case hooks.SubagentStart:
		o.add("agent_id", in.AgentID)
		o.add("agent_type", in.AgentType)
	case hooks.SubagentStop:
		o.add("stop_hook_active", in.StopHookActive)
		o.add("agent_id", in.AgentID)
		o.add("agent_type", in.AgentType)
		o.add("agent_transcript_path", in.AgentTranscriptPath)
		o.add("last_assistant_message", in.LastAssistantMessage)
	case hooks.PreCompact:
		o.add("trigger", in.Trigger)
		o.add("custom_instructions", in.CustomInstructions)
	case hooks.SessionEnd:
		o.add("reason", in.Reason)
	case hooks.Notification:
		o.add("message", in.Message)
		o.add("notification_type", in.NotificationType)
	}
	return o.bytes()
}

// toolResponse renders the loop's tool result ({"output": text}) in the
// structured shape Claude Code's tools report, for the tools whose shape
// hooks rely on: Bash {stdout, stderr, interrupted, isImage}, Write and
// Edit {filePath, success}. Anything else is passed through.
func toolResponse(tool string, input, resp json.RawMessage) json.RawMessage {
	if len(resp) == 0 {
		return json.RawMessage("{}")
	}
	var loopShape struct {
		Output *string `json:"output"`
		Images []struct {
			MediaType string `json:"mediaType"`
			Data      string `json:"data"`
			Size      int    `json:"size"`
		} `json:"images"`
	}
	var keys map[string]json.RawMessage
	if json.Unmarshal(resp, &keys) != nil || json.Unmarshal(resp, &loopShape) != nil || loopShape.Output == nil {
		return resp
	}
	if _, images := keys["images"]; len(keys) != 1 && !(images && len(keys) == 2) {
		return resp
	}
	var o object
	if len(loopShape.Images) > 0 {
		if tool != "Read" || len(loopShape.Images) != 1 {
			return resp
		}
		// Claude Code's Read of an image.
		im := loopShape.Images[0]
		var file object
		file.add("base64", im.Data)
		file.add("type", im.MediaType)
		file.add("originalSize", im.Size)
		o.add("type", "image")
		o.add("file", json.RawMessage(file.bytes()))
		return o.bytes()
	}
	switch tool {
	case "Bash":
		o.add("stdout", *loopShape.Output)
		o.add("stderr", "")
		o.add("interrupted", false)
		o.add("isImage", false)
	case "Write", "Edit":
		var in struct {
			FilePath string `json:"file_path"`
		}
		_ = json.Unmarshal(input, &in)
		o.add("filePath", in.FilePath)
		o.add("success", true)
	default:
		return resp
	}
	return o.bytes()
}

func jsonUnmarshal(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return nil
	}
	return json.Unmarshal(raw, v)
}
