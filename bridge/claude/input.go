package claude

import (
	"encoding/json"
	"strings"

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
	o := engine.Object{}
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
		o.Set("permission_suggestions", permissionUpdates(in.PermissionSuggestions))
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
	case hooks.PostCompact:
		o.Set("trigger", in.Trigger)
		o.Set("compact_summary", in.CompactSummary)
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
	o := engine.Object{}
	if len(loopShape.Images) > 0 {
		if tool != "Read" || len(loopShape.Images) != 1 {
			return resp
		}
		// Claude Code's Read of an image.
		im := loopShape.Images[0]
		file := engine.Object{}
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

// ruleValue is a permission rule as Claude Code's hooks and SDK exchange
// it: the tool and, for a scoped rule, what is inside the parentheses.
type ruleValue struct {
	ToolName    string `json:"toolName"`
	RuleContent string `json:"ruleContent,omitempty"`
}

// permissionUpdate is Claude Code's PermissionUpdate: addRules {rules,
// behavior, destination} or setMode {mode, destination}.
type permissionUpdate struct {
	Type        string      `json:"type"`
	Rules       []ruleValue `json:"rules,omitempty"`
	Behavior    string      `json:"behavior,omitempty"`
	Mode        string      `json:"mode,omitempty"`
	Destination string      `json:"destination"`
}

// permissionUpdates renders updates in Claude Code's shape (an empty list
// when there are none).
func permissionUpdates(updates []hooks.PermissionUpdate) []permissionUpdate {
	out := make([]permissionUpdate, 0, len(updates))
	for _, u := range updates {
		pu := permissionUpdate{Type: u.Type, Behavior: u.Behavior, Mode: u.Mode, Destination: u.Destination}
		for _, r := range u.Rules {
			pu.Rules = append(pu.Rules, splitRule(r))
		}
		out = append(out, pu)
	}
	return out
}

// splitRule splits `Tool(content)` into its tool and content.
func splitRule(rule string) ruleValue {
	if i := strings.IndexByte(rule, '('); i > 0 && strings.HasSuffix(rule, ")") {
		return ruleValue{ToolName: rule[:i], RuleContent: rule[i+1 : len(rule)-1]}
	}
	return ruleValue{ToolName: rule}
}

// String is the rule in Claude Code's syntax (splitRule's inverse).
func (r ruleValue) String() string {
	if r.RuleContent == "" {
		return r.ToolName
	}
	return r.ToolName + "(" + r.RuleContent + ")"
}

// fromPermissionUpdates reads a hook's updatedPermissions.
func fromPermissionUpdates(in []permissionUpdate) []hooks.PermissionUpdate {
	var out []hooks.PermissionUpdate
	for _, u := range in {
		hu := hooks.PermissionUpdate{Type: u.Type, Behavior: u.Behavior, Mode: u.Mode, Destination: u.Destination}
		for _, r := range u.Rules {
			if r.ToolName != "" {
				hu.Rules = append(hu.Rules, r.String())
			}
		}
		out = append(out, hu)
	}
	return out
}
