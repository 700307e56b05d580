package openai

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/llm"
)

// The output limit: none unless configured (0 leaves it to the server),
// and in the field the model family takes.
func TestOutputLimitField(t *testing.T) {
	for _, tc := range []struct {
		model     string
		maxTokens int
		field     string // configured maxTokensField ("" = by model)
		want      string // the limit as it appears in the body, "" for none
	}{
		{"gpt-4o", 0, "", ""},
		{"deepseek-chat", 0, "", ""},
		{"gpt-4o", 1000, "", `"max_tokens":1000`},
		{"o3-mini", 1000, "", `"max_completion_tokens":1000`},
		{"o1", 1000, "", `"max_completion_tokens":1000`},
		{"gpt-5-mini", 1000, "", `"max_completion_tokens":1000`},
		{"gpt-5", 1000, "max_tokens", `"max_tokens":1000`}, // configured wins
	} {
		api := newFakeAPI(t, sseBody(chunkEvent(`{"content":"x"}`, "stop")+done))
		p, _ := newTestProvider(t, api, Config{Model: tc.model, MaxTokens: tc.maxTokens, MaxTokensField: tc.field})
		if _, err := p.Stream(context.Background(), userRequest("hi"), nil); err != nil {
			t.Fatal(err)
		}
		body := api.received()[0].Body
		hasLimit := strings.Contains(body, "max_tokens") || strings.Contains(body, "max_completion_tokens")
		switch {
		case tc.want == "" && hasLimit:
			t.Errorf("%s: an output limit was sent although none is configured: %s", tc.model, body)
		case tc.want != "" && !strings.Contains(body, tc.want):
			t.Errorf("%s: body %s, want %s", tc.model, body, tc.want)
		}
	}
}

// DeepSeek's thinking mode requires the reasoning of tool-call turns back
// (even when empty); the legacy deepseek-reasoner refuses it; turns
// without tool calls never carry it.
func TestReasoningContentOnToolCallTurns(t *testing.T) {
	history := []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Block{llm.Text("q")}},
		{Role: llm.RoleAssistant, Content: []llm.Block{
			{Type: llm.BlockThinking, Thinking: "I should list files."},
			{Type: llm.BlockToolUse, ID: "call_1", Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)},
		}},
		{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ToolUseID: "call_1", Content: []llm.Block{llm.Text("a.go")}}}},
		{Role: llm.RoleAssistant, Content: []llm.Block{
			{Type: llm.BlockToolUse, ID: "call_2", Name: "Bash", Input: json.RawMessage(`{"command":"pwd"}`)},
		}},
		{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ToolUseID: "call_2", Content: []llm.Block{llm.Text("/w")}}}},
		{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockThinking, Thinking: "Done."}, llm.Text("Two files.")}},
		{Role: llm.RoleUser, Content: []llm.Block{llm.Text("thanks")}},
	}
	type wireMsg struct {
		Role             string  `json:"role"`
		ReasoningContent *string `json:"reasoning_content"`
		ToolCalls        []any   `json:"tool_calls"`
	}
	decode := func(model string) []wireMsg {
		raw, err := encodeRequest(&llm.Request{Messages: history}, model, "")
		if err != nil {
			t.Fatal(err)
		}
		var body struct{ Messages []wireMsg }
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Fatal(err)
		}
		return body.Messages
	}
	var got []string
	for _, m := range decode("deepseek-chat") {
		if m.Role == "assistant" {
			r := "-"
			if m.ReasoningContent != nil {
				r = *m.ReasoningContent
			}
			got = append(got, r)
		}
	}
	if want := "I should list files.||-"; strings.Join(got, "|") != want {
		t.Errorf("deepseek-chat reasoning_content per assistant message = %q, want %q", strings.Join(got, "|"), want)
	}
	for _, model := range []string{"deepseek-reasoner", "gpt-4o"} {
		for _, m := range decode(model) {
			if m.ReasoningContent != nil {
				t.Errorf("%s: reasoning_content sent: %q", model, *m.ReasoningContent)
			}
		}
	}
}

// Mistral streams content as an array of parts.
func TestArrayContentInDeltas(t *testing.T) {
	body := chunkEvent(`{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"Hmm."}]}]}`, "") +
		chunkEvent(`{"content":[{"type":"text","text":"Hello"},{"type":"text","text":", world"}]}`, "") +
		chunkEvent(`{"content":"!"}`, "") +
		chunkEvent(`{"content":null}`, "stop") + done
	resp, err := decodeStream(strings.NewReader(body), nil)
	if err != nil {
		t.Fatal(err)
	}
	var text, thinking string
	for _, b := range resp.Content {
		text += b.Text
		thinking += b.Thinking
	}
	if text != "Hello, world!" || thinking != "Hmm." {
		t.Errorf("text %q, thinking %q", text, thinking)
	}
}

// Whitespace-only text is not sent back.
func TestWhitespaceTextIsNotSent(t *testing.T) {
	req := &llm.Request{Messages: []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Block{llm.Text("q")}},
		{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("\n\n"), {Type: llm.BlockToolUse, ID: "c", Name: "Bash", Input: json.RawMessage(`{}`)}}},
		{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ToolUseID: "c", Content: []llm.Block{llm.Text("ok")}}, llm.Text("  ")}},
	}}
	raw, err := encodeRequest(req, "gpt-4o", "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), `\n\n`) || strings.Contains(string(raw), `"  "`) {
		t.Errorf("whitespace-only text sent: %s", raw)
	}
}
