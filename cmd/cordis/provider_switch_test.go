package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/acp"
)

// openAITextReply is a Chat Completions stream answering text.
func openAITextReply(text string) string {
	q, _ := json.Marshal(text)
	return "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":" + string(q) + "}}]}\n\n" +
		"data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n" +
		"data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_tokens\":20,\"completion_tokens\":2,\"total_tokens\":22}}\n\n" +
		"data: [DONE]\n\n"
}

// TestSessionMovesToAnotherProvider: a session made with the Anthropic
// provider (its tool call ids are toolu_…) is loaded by a cordis
// configured for Mistral's OpenAI-compatible API, which accepts only
// nine-letter-or-digit tool call ids. The request that continues the
// conversation carries the history with ids Mistral accepts, each tool
// result paired with its call, and nothing of the Anthropic wire (no
// thinking, no tool_use blocks).
func TestSessionMovesToAnotherProvider(t *testing.T) {
	ctx := testCtx(t)
	state, work := t.TempDir(), t.TempDir()
	anthropic := newFakeModel(t,
		toolReply("toolu_01A", "Glob", `{"pattern":"*.txt"}`),
		textReply("No text files here."))
	e1, _ := startAgent(t, anthropic, state, work)
	e1.Initialize(ctx, acp.ClientCapabilities{})
	sid := e1.NewSession(ctx, work).SessionID
	if stop, err := e1.Prompt(ctx, sid, "find the text files"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("first prompt = %q, %v", stop, err)
	}
	e1.Close()

	mistral := newFakeModel(t, openAITextReply("Still none."))
	config := configFile(t, "- id: llm\n  name: llm/openai\n  config: {baseURL: \""+mistral.srv.URL+"/v1\", model: mistral-large-latest, apiKeyEnv: \"\"}\n")
	e2, _ := startAgent(t, mistral, state, work, "--config", config)
	e2.Initialize(ctx, acp.ClientCapabilities{})
	var loaded json.RawMessage
	if err := e2.Call(ctx, acp.MethodSessionLoad, acp.LoadSessionRequest{SessionID: sid, Cwd: work, MCPServers: []acp.MCPServer{}}, &loaded); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	if stop, err := e2.Prompt(ctx, sid, "look again"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt after the switch = %q, %v", stop, err)
	}
	reqs := mistral.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests to the new provider, want 1", len(reqs))
	}
	var body struct {
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(reqs[0]), &body); err != nil {
		t.Fatal(err)
	}
	mistralID := regexp.MustCompile(`^[a-zA-Z0-9]{9}$`)
	var callID, resultID string
	for _, m := range body.Messages {
		for _, c := range m.ToolCalls {
			if c.Function.Name == "Glob" {
				callID = c.ID
			}
		}
		if m.Role == "tool" {
			resultID = m.ToolCallID
		}
	}
	if !mistralID.MatchString(callID) || resultID != callID {
		t.Errorf("tool call id %q, its result's %q: want one nine-character id Mistral accepts, the same on both", callID, resultID)
	}
	for _, bad := range []string{`"tool_use"`, `"thinking"`, "toolu_01A"} {
		if strings.Contains(reqs[0], bad) {
			t.Errorf("the request to Mistral carries %s from the Anthropic wire:\n%s", bad, reqs[0])
		}
	}
	if !strings.Contains(reqs[0], "find the text files") || !strings.Contains(reqs[0], "look again") {
		t.Errorf("the request does not continue the conversation:\n%s", reqs[0])
	}
}
