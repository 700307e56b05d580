package anthropic

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/cordis-agent/cordis/llm"
)

// After /model from an OpenAI-compatible backend, the history holds tool
// call ids the Messages API refuses (its pattern is ^[a-zA-Z0-9_-]+$, and
// ids must be unique) and reasoning without a signature: the ids are
// renamed with their results, and the unsigned thinking is left out.
func TestForeignHistoryAfterProviderSwitch(t *testing.T) {
	use := func(id string) llm.Block {
		return llm.Block{Type: llm.BlockToolUse, ID: id, Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)}
	}
	res := func(id string) llm.Block {
		return llm.Block{Type: llm.BlockToolResult, ToolUseID: id, Content: []llm.Block{llm.Text("ok")}}
	}
	req := &llm.Request{Model: "claude-sonnet-4-5", MaxTokens: 1024, Messages: []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Block{llm.Text("go")}},
		{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockThinking, Thinking: "DeepSeek's reasoning"},
			use("functions.Bash:0"), use(""), use("call_ok")}},
		{Role: llm.RoleUser, Content: []llm.Block{res("functions.Bash:0"), res(""), res("call_ok")}},
		{Role: llm.RoleAssistant, Content: []llm.Block{use("functions.Bash:0"), use("call_ok")}},
		{Role: llm.RoleUser, Content: []llm.Block{res("functions.Bash:0"), res("call_ok")}},
	}}
	raw, err := EncodeRequest(req, "")
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Messages []struct {
			Role    string
			Content []struct {
				Type      string
				ID        string
				ToolUseID string `json:"tool_use_id"`
			}
		}
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatal(err)
	}
	pattern := regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)
	seen := map[string]bool{}
	var ids []string
	for i, m := range body.Messages {
		var uses, results []string
		for _, b := range m.Content {
			switch b.Type {
			case "thinking":
				t.Errorf("message %d: unsigned thinking sent", i)
			case "tool_use":
				if !pattern.MatchString(b.ID) || seen[b.ID] {
					t.Errorf("message %d: tool_use id %q invalid or repeated", i, b.ID)
				}
				seen[b.ID] = true
				uses = append(uses, b.ID)
			case "tool_result":
				results = append(results, b.ToolUseID)
			}
		}
		ids = append(ids, uses...)
		if m.Role == "user" && i > 0 {
			prev := body.Messages[i-1].Content
			for k, r := range results {
				if k >= len(prev) || prev[k].ID != r {
					t.Errorf("message %d: result %q does not answer call %d of the message before", i, r, k)
				}
			}
		}
	}
	if len(ids) != 5 || ids[0] != "functions_Bash_0" || ids[2] != "call_ok" {
		t.Errorf("ids %q: want the sanitized id first and valid ids kept", ids)
	}
}
