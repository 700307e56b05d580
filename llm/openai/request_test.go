package openai

import (
	"encoding/json"
	"testing"

	"github.com/cordis-agent/cordis/llm"
)

// Chat Completions tool messages carry text only: an image a tool returns
// (Read of a PNG) goes in a user message right after the tool messages of
// the step, as a data URL, labelled with the call it answers.
func TestEncodeToolResultImage(t *testing.T) {
	req := &llm.Request{Messages: []llm.Message{
		{Role: llm.RoleAssistant, Content: []llm.Block{
			{Type: llm.BlockToolUse, ID: "call_1", Name: "Read", Input: json.RawMessage(`{"file_path":"/w/a.png"}`)},
			{Type: llm.BlockToolUse, ID: "call_2", Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)},
		}},
		{Role: llm.RoleUser, Content: []llm.Block{
			{Type: llm.BlockToolResult, ToolUseID: "call_1", Content: []llm.Block{
				llm.Text("Read image /w/a.png: PNG, 1x1 pixels, 8 bytes."),
				{Type: llm.BlockImage, MediaType: "image/png", Data: "iVBORw0KGgo="},
			}},
			{Type: llm.BlockToolResult, ToolUseID: "call_2", Content: []llm.Block{llm.Text("a.png")}},
			llm.Text("Also look at this."),
		}},
	}}
	got, err := encodeRequest(req, "gpt-test", "max_tokens")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"gpt-test","messages":[` +
		`{"role":"assistant","tool_calls":[` +
		`{"id":"call_1","type":"function","function":{"name":"Read","arguments":"{\"file_path\":\"/w/a.png\"}"}},` +
		`{"id":"call_2","type":"function","function":{"name":"Bash","arguments":"{\"command\":\"ls\"}"}}]},` +
		`{"role":"tool","content":"Read image /w/a.png: PNG, 1x1 pixels, 8 bytes.","tool_call_id":"call_1"},` +
		`{"role":"tool","content":"a.png","tool_call_id":"call_2"},` +
		`{"role":"user","content":[` +
		`{"type":"text","text":"Image returned by tool call call_1:"},` +
		`{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}},` +
		`{"type":"text","text":"Also look at this."}]}],` +
		`"stream":true,"stream_options":{"include_usage":true}}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// A step whose tool results carry no image adds no user message.
func TestEncodeToolResultsWithoutImage(t *testing.T) {
	msgs, err := encodeUser([]llm.Block{{Type: llm.BlockToolResult, ToolUseID: "call_1", Content: []llm.Block{llm.Text("ok")}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 || msgs[0].Role != "tool" {
		t.Errorf("got %+v, want one tool message", msgs)
	}
}
