package looptest

import (
	"context"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/acp"
)

// AgentText joins the agent_message_chunk text of a session's updates.
func AgentText(updates []acp.SessionUpdate) string {
	var b strings.Builder
	for _, u := range updates {
		if c, ok := u.(*acp.AgentMessageChunk); ok {
			b.WriteString(c.Content.Text)
		}
	}
	return b.String()
}

// Allow answers every permission request with option (an
// acptest.Editor.OnPermission handler).
func Allow(option string) func(context.Context, *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	return func(context.Context, *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: option}}, nil
	}
}

// ToolResult finds the tool_result for the call id in a request the model
// server recorded, and fails the test if there is none.
func ToolResult(t testing.TB, req map[string]any, id string) (text string, isError bool) {
	t.Helper()
	msgs, _ := req["messages"].([]any)
	for _, m := range msgs {
		content, _ := m.(map[string]any)["content"].([]any)
		for _, c := range content {
			b := c.(map[string]any)
			if b["type"] == "tool_result" && b["tool_use_id"] == id {
				isErr, _ := b["is_error"].(bool)
				switch v := b["content"].(type) {
				case string:
					return v, isErr
				case []any:
					var sb strings.Builder
					for _, x := range v {
						sb.WriteString(x.(map[string]any)["text"].(string))
					}
					return sb.String(), isErr
				}
			}
		}
	}
	t.Fatalf("no tool_result for %s in request", id)
	return "", false
}
