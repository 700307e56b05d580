package claude

import (
	"encoding/json"

	"github.com/cordis-agent/cordis/bridge/internal/engine"
	"github.com/cordis-agent/cordis/bridge/internal/rendering"
	"github.com/cordis-agent/cordis/hooks"
)

// renderInput is the stdin of a Claude Code hook for in: the common fields
// (session_id, transcript_path, cwd, permission_mode, hook_event_name),
// agent_id/agent_type inside subagents, then the event's own fields, each
// present even when empty where Claude Code always sends it. The
// transcripts are at paths.
func renderInput(in *hooks.Input, paths rendering.Paths) []byte {
	o := engine.Object{EscapeHTML: true}
	o.Set("session_id", in.SessionID)
	o.Set("transcript_path", paths.Session)
	o.Set("cwd", in.Cwd)
	if in.PermissionMode != "" {
		o.Set("permission_mode", in.PermissionMode)
	}
	o.Set("hook_event_name", string(in.Event))
	switch in.Event {
	case hooks.SubagentStart, hooks.SubagentStop:
	default:
		if in.AgentID != "" {
			o.Set("agent_id", in.AgentID)
		}
		if in.AgentType != "" {
			o.Set("agent_type", in.AgentType)
		}
	}
	toolInput := in.ToolInput
	if len(toolInput) == 0 {
		toolInput = json.RawMessage("{}")
	}
	switch in.Event {
	case hooks.SessionStart:
		o.Set("source", in.Source)
		if in.Model != "" {
			o.Set("model", in.Model)
		}
	case hooks.UserPromptSubmit:
		o.Set("prompt", in.Prompt)
	case hooks.PreToolUse:
		o.Set("tool_name", in.ToolName)
		o.Set("tool_input", toolInput)
		o.Set("tool_use_id", in.ToolUseID)
	case hooks.PermissionRequest:
		o.Set("tool_name", in.ToolName)
		o.Set("tool_input", toolInput)
	case hooks.PostToolUse:
		o.Set("tool_name", in.ToolName)
		o.Set("tool_input", toolInput)
		o.Set("tool_response", toolResponse(in.ToolName, toolInput, in.ToolResponse))
		o.Set("tool_use_id", in.ToolUseID)
	case hooks.PostToolUseFailure:
		o.Set("tool_name", in.ToolName)
		o.Set("tool_input", toolInput)
		o.Set("tool_use_id", in.ToolUseID)
		o.Set("error", in.Error)
		o.Set("is_interrupt", false)
	case hooks.Stop:
		o.Set("stop_hook_active", in.StopHookActive)
		o.Set("last_assistant_message", in.LastAssistantMessage)
	case hooks.SubagentStart:
		o.Set("agent_id", in.AgentID)
		o.Set("agent_type", in.AgentType)
	case hooks.SubagentStop:
		o.Set("stop_hook_active", in.StopHookActive)
		o.Set("agent_id", in.AgentID)
		o.Set("agent_type", in.AgentType)
		o.Set("agent_transcript_path", paths.Agent)
		o.Set("last_assistant_message", in.LastAssistantMessage)
	case hooks.PreCompact:
		o.Set("trigger", in.Trigger)
		o.Set("custom_instructions", in.CustomInstructions)
	case hooks.SessionEnd:
		o.Set("reason", in.Reason)
	case hooks.Notification:
		o.Set("message", in.Message)
		o.Set("notification_type", in.NotificationType)
	}
	return o.JSON()
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
	o := engine.Object{EscapeHTML: true}
	if len(loopShape.Images) > 0 {
		if tool != "Read" || len(loopShape.Images) != 1 {
			return resp
		}
		// Claude Code's Read of an image.
		im := loopShape.Images[0]
		file := engine.Object{EscapeHTML: true}
		file.Set("base64", im.Data)
		file.Set("type", im.MediaType)
		file.Set("originalSize", im.Size)
		o.Set("type", "image")
		o.Set("file", json.RawMessage(file.JSON()))
		return o.JSON()
	}
	switch tool {
	case "Bash":
		o.Set("stdout", *loopShape.Output)
		o.Set("stderr", "")
		o.Set("interrupted", false)
		o.Set("isImage", false)
	case "Write", "Edit":
		var in struct {
			FilePath string `json:"file_path"`
		}
		_ = json.Unmarshal(input, &in)
		o.Set("filePath", in.FilePath)
		o.Set("success", true)
	default:
		return resp
	}
	return o.JSON()
}

func jsonUnmarshal(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return nil
	}
	return json.Unmarshal(raw, v)
}
