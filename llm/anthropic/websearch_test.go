package anthropic

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/llm"
)

// The blocks of an authored web search answer, as content_block_start
// carries them (the result comes whole, with no deltas).
const (
	searchUseStart = `{"type":"server_tool_use","id":"srvtoolu_01","name":"web_search","input":{},"caller":{"type":"direct"}}`
	searchResult   = `{"type":"web_search_tool_result","tool_use_id":"srvtoolu_01","content":[{"type":"web_search_result","title":"Go 1.26 Release Notes","url":"https://go.dev/doc/go1.26","encrypted_content":"EqgfCioIARgBIiQ3YTAwMjY1Mi","page_age":"February 11, 2026"},{"type":"web_search_result","title":"Go blog","url":"https://go.dev/blog/","encrypted_content":"EpYBCioIARgB","page_age":null}],"caller":{"type":"direct"}}`
	searchCitation = `{"type":"web_search_result_location","cited_text":"Go 1.26 adds ...","url":"https://go.dev/doc/go1.26","title":"Go 1.26 Release Notes","encrypted_index":"Eo8BCioIARgBIiQ3YTAw"}`
)

func webSearchStream() string {
	return event("message_start", `{"type":"message_start","message":{"id":"msg_ws","model":"claude-test-1","usage":{"input_tokens":2100,"output_tokens":3}}}`) +
		event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`) +
		event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Let me search."}}`) +
		event("content_block_stop", `{"type":"content_block_stop","index":0}`) +
		event("content_block_start", `{"type":"content_block_start","index":1,"content_block":`+searchUseStart+`}`) +
		event("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"query\": \"go 1"}}`) +
		event("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":".26 release\"}"}}`) +
		event("content_block_stop", `{"type":"content_block_stop","index":1}`) +
		event("content_block_start", `{"type":"content_block_start","index":2,"content_block":`+searchResult+`}`) +
		event("content_block_stop", `{"type":"content_block_stop","index":2}`) +
		event("content_block_start", `{"type":"content_block_start","index":3,"content_block":{"type":"text","text":"","citations":[]}}`) +
		event("content_block_delta", `{"type":"content_block_delta","index":3,"delta":{"type":"citations_delta","citation":`+searchCitation+`}}`) +
		event("content_block_delta", `{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"Go 1.26 adds new features."}}`) +
		event("content_block_stop", `{"type":"content_block_stop","index":3}`) +
		event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"input_tokens":2100,"output_tokens":120,"server_tool_use":{"web_search_requests":1}}}`) +
		event("message_stop", `{"type":"message_stop"}`)
}

// TestWebSearchDecodedAndSentBack: the server tool's call, its result
// (encrypted content included) and the citations of the text after it
// are kept, and a later request sends them back as the API gave them.
func TestWebSearchDecodedAndSentBack(t *testing.T) {
	api := newFakeAPI(t, sseBody(webSearchStream()))
	p, _ := newTestProvider(t, api, Config{})
	deltas, sink := collect()
	resp, err := p.Stream(context.Background(), userRequest("what is new in go 1.26?"), sink)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Usage.WebSearchRequests != 1 {
		t.Errorf("web search requests = %d, want 1", resp.Usage.WebSearchRequests)
	}
	for _, d := range *deltas {
		if d.Kind == llm.DeltaToolUse {
			t.Errorf("a server tool call was announced as a tool call to run: %+v", d)
		}
	}
	if len(resp.Content) != 4 {
		t.Fatalf("content = %+v, want 4 blocks", resp.Content)
	}
	use, result, cited := resp.Content[1], resp.Content[2], resp.Content[3]
	if use.Type != llm.BlockServerToolUse || use.ID != "srvtoolu_01" || use.Name != "web_search" || string(use.Input) != `{"query":"go 1.26 release"}` {
		t.Errorf("server tool use = %+v", use)
	}
	if result.Type != llm.BlockServerToolResult || result.ToolUseID != "srvtoolu_01" || result.Name != "web_search_tool_result" {
		t.Errorf("server tool result = %+v", result)
	}
	if cited.Text != "Go 1.26 adds new features." || string(cited.Citations) != "["+searchCitation+"]" {
		t.Errorf("cited text = %q, citations %s", cited.Text, cited.Citations)
	}

	// The whole answer goes back in the next request.
	req := userRequest("what is new in go 1.26?")
	req.Messages = append(req.Messages, llm.Message{Role: llm.RoleAssistant, Content: resp.Content},
		llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.Text("thanks")}})
	body, err := EncodeRequest(req, "claude-test")
	if err != nil {
		t.Fatal(err)
	}
	var sent struct {
		Messages []struct {
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &sent); err != nil {
		t.Fatal(err)
	}
	got := sent.Messages[1].Content
	want := []string{
		`{"type":"text","text":"Let me search."}`,
		strings.Replace(searchUseStart, `"input":{}`, `"input":{"query":"go 1.26 release"}`, 1),
		searchResult,
		`{"type":"text","text":"Go 1.26 adds new features.","citations":[` + searchCitation + `]}`,
	}
	if len(got) != len(want) {
		t.Fatalf("assistant content sent = %s", got)
	}
	for i := range want {
		if string(got[i]) != want[i] {
			t.Errorf("block %d sent as\n %s\nwant\n %s", i, got[i], want[i])
		}
	}
}

func TestWebSearchToolEncoding(t *testing.T) {
	req := userRequest("hi")
	req.Tools = []llm.ToolSpec{{Name: "Read", Description: "reads", InputSchema: json.RawMessage(`{"type":"object"}`)}}
	req.WebSearch = &llm.WebSearch{MaxUses: 8, AllowedDomains: []string{"go.dev"}}
	body, err := EncodeRequest(req, "claude-test")
	if err != nil {
		t.Fatal(err)
	}
	var sent struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(body, &sent); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"name":"Read","description":"reads","input_schema":{"type":"object"}}`,
		`{"type":"web_search_20250305","name":"web_search","max_uses":8,"allowed_domains":["go.dev"],"cache_control":{"type":"ephemeral"}}`,
	}
	if len(sent.Tools) != 2 || string(sent.Tools[0]) != want[0] || string(sent.Tools[1]) != want[1] {
		t.Errorf("tools sent = %s\nwant %s", sent.Tools, want)
	}

	req.WebSearch.BlockedDomains = []string{"example.com"}
	if _, err := EncodeRequest(req, "claude-test"); err == nil || !strings.Contains(err.Error(), "allowed and blocked") {
		t.Errorf("both domain lists: err = %v, want a refusal", err)
	}
}

// TestWebSearchErrorResultKept: a search that failed (the API's error
// object in place of results) is kept and sent back unchanged too.
func TestWebSearchErrorResultKept(t *testing.T) {
	failed := `{"type":"web_search_tool_result","tool_use_id":"srvtoolu_02","content":{"type":"web_search_tool_result_error","error_code":"max_uses_exceeded"}}`
	stream := event("message_start", `{"type":"message_start","message":{"id":"msg_ws","model":"claude-test-1","usage":{"input_tokens":10,"output_tokens":1}}}`) +
		event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_02","name":"web_search","input":{}}}`) +
		event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"query\":\"x\"}"}}`) +
		event("content_block_stop", `{"type":"content_block_stop","index":0}`) +
		event("content_block_start", `{"type":"content_block_start","index":1,"content_block":`+failed+`}`) +
		event("content_block_stop", `{"type":"content_block_stop","index":1}`) +
		event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"pause_turn"},"usage":{"output_tokens":5,"server_tool_use":{"web_search_requests":0}}}`) +
		event("message_stop", `{"type":"message_stop"}`)
	p, _ := newTestProvider(t, newFakeAPI(t, sseBody(stream)), Config{})
	resp, err := p.Stream(context.Background(), userRequest("x"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != llm.StopPauseTurn || len(resp.Content) != 2 || string(resp.Content[1].Raw) != failed {
		t.Fatalf("response = %+v", resp)
	}
	req := userRequest("x")
	req.Messages = append(req.Messages, llm.Message{Role: llm.RoleAssistant, Content: resp.Content})
	body, err := EncodeRequest(req, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), failed) {
		t.Errorf("the failed search's block is not sent back as received:\n%s", body)
	}
}
