package loop_test

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/llm/anthropic"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
)

// Authored blocks of the API's web search, as content_block_start carries
// them.
const (
	wsUse    = `{"type":"server_tool_use","id":"srvtoolu_01","name":"web_search","input":{}}`
	wsResult = `{"type":"web_search_tool_result","tool_use_id":"srvtoolu_01","content":[{"type":"web_search_result","title":"Go 1.26 Release Notes","url":"https://go.dev/doc/go1.26","encrypted_content":"EqgfCioIARgBIiQ3","page_age":"February 11, 2026"}]}`
	wsCite   = `{"type":"web_search_result_location","cited_text":"Go 1.26 adds ...","url":"https://go.dev/doc/go1.26","title":"Go 1.26 Release Notes","encrypted_index":"Eo8BCioIARgB"}`
)

// searchReply streams a side call's answer: the search and its result,
// paused (the API's pause_turn), or the cited text that ends it.
func searchReply(paused bool) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		ev := func(name, data string) { w.Write([]byte("event: " + name + "\ndata: " + data + "\n\n")) }
		ev("message_start", `{"type":"message_start","message":{"id":"msg_s","model":"claude-sonnet-4-5","usage":{"input_tokens":1000,"output_tokens":1}}}`)
		if paused {
			ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":`+wsUse+`}`)
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"query\":\"go 1.26 release\"}"}}`)
			ev("content_block_stop", `{"type":"content_block_stop","index":0}`)
			ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":`+wsResult+`}`)
			ev("content_block_stop", `{"type":"content_block_stop","index":1}`)
			ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"pause_turn"},"usage":{"output_tokens":50,"server_tool_use":{"web_search_requests":1}}}`)
		} else {
			ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"","citations":[]}}`)
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":`+wsCite+`}}`)
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Go 1.26 adds new features."}}`)
			ev("content_block_stop", `{"type":"content_block_stop","index":0}`)
			ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":50}}`)
		}
		ev("message_stop", `{"type":"message_stop"}`)
	}
}

func decoded(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// WebSearch is a client tool the user approves; running it is a side
// call offering only the API's web search, continued after a pause with
// the server tool blocks sent back as received. The model gets the pages
// and the cited answer; the searches are billed; the context meter stays
// the conversation's.
func TestWebSearchRunsTheServerTool(t *testing.T) {
	main := func(stop string, blocks ...looptest.Block) http.HandlerFunc {
		return looptest.Reply{Stop: stop, Blocks: blocks, Model: "claude-sonnet-4-5"}.Handler()
	}
	h := looptest.NewHarness(t, looptest.Options{Anthropic: anthropic.Config{Model: "claude-sonnet-4-5"}},
		main("tool_use", looptest.ToolUse("toolu_ws", "WebSearch", map[string]any{"query": "go 1.26 release", "allowed_domains": []string{"go.dev"}})),
		searchReply(true),
		searchReply(false),
		main("end_turn", looptest.Text("Go 1.26 is out.")))
	var asked []string
	h.Editor.OnPermission = func(_ context.Context, p *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		asked = append(asked, p.ToolCall.Title)
		return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: acp.PermAllowOnce}}, nil
	}
	sid := h.NewSession()
	if stop := h.Prompt(sid, "what is new in go?"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	if want := "Search the web: go 1.26 release"; !slices.Contains(asked, want) {
		t.Errorf("permission asked for %q, want %q", asked, want)
	}
	reqs := h.Model.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	if names := toolNames(reqs[0]); !slices.Contains(names, "WebSearch") || slices.Contains(names, "web_search") {
		t.Errorf("main request tools = %q, want WebSearch and not the server tool", names)
	}
	wantTool := decoded(t, `[{"type":"web_search_20250305","name":"web_search","max_uses":8,"allowed_domains":["go.dev"],"cache_control":{"type":"ephemeral"}}]`)
	if got := reqs[1]["tools"]; !reflect.DeepEqual(got, wantTool) {
		t.Errorf("side call tools = %v, want only the server tool", got)
	}
	// The paused turn goes back as it came: the call (with its input) and
	// the result, encrypted content included.
	msgs := reqs[2]["messages"].([]any)
	if len(msgs) != 2 {
		t.Fatalf("continuation messages = %v", msgs)
	}
	sent := msgs[1].(map[string]any)["content"].([]any)
	wantUse := decoded(t, strings.Replace(wsUse, `"input":{}`, `"input":{"query":"go 1.26 release"}`, 1))
	if len(sent) != 2 || !reflect.DeepEqual(sent[0], wantUse) || !reflect.DeepEqual(sent[1], decoded(t, wsResult)) {
		t.Errorf("continuation sent back %v", sent)
	}
	text, isErr := looptest.ToolResult(t, reqs[3], "toolu_ws")
	for _, want := range []string{"- [Go 1.26 Release Notes](https://go.dev/doc/go1.26)", "Go 1.26 adds new features. (<https://go.dev/doc/go1.26>)"} {
		if isErr || !strings.Contains(text, want) {
			t.Errorf("tool result lacks %q:\n%s", want, text)
		}
	}

	var last *acp.UsageUpdate
	var card *acp.ToolCall
	for _, u := range h.Editor.Updates(sid) {
		switch u := u.(type) {
		case *acp.UsageUpdate:
			last = u
		case *acp.ToolCall:
			if u.ToolCallID == "toolu_ws" {
				card = u
			}
		}
	}
	if card == nil || card.Kind != acp.ToolKind("fetch") {
		t.Errorf("tool call card = %+v, want kind fetch", card)
	}
	// Two main steps of 100 in and 20 out; side calls of 1000 in and 50
	// out each, one search at $10 per 1,000; Sonnet's $3/$15 per MTok.
	wantCost := 2*(100*3+20*15)/1e6 + 2*(1000*3+50*15)/1e6 + 0.01
	if last == nil || last.Cost == nil || math.Abs(last.Cost.Amount-wantCost) > 1e-9 {
		t.Errorf("last usage_update = %+v (cost %+v), want cost %v", last, last.Cost, wantCost)
	} else if last.Used != 120 {
		t.Errorf("context used = %d, want the last main step's 120 (the side call is not in the context)", last.Used)
	}
}

// notSearching hides the Anthropic provider's web search, as an
// OpenAI-compatible provider has none.
type notSearching struct{ llm.Provider }

func TestWebSearchAbsentWithoutProviderSearch(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{Config: func(c *loop.Config) { c.Provider = notSearching{c.Provider} }},
		looptest.ReplyText("hi"))
	h.Prompt(h.NewSession(), "hello")
	req := h.Model.Requests()[0]
	if names := toolNames(req); slices.Contains(names, "WebSearch") || len(names) == 0 {
		t.Errorf("tools = %q, want no WebSearch", names)
	}
	// Neither a tool nor the base prompt speaks of it (the environment
	// block names the test's directory, which does).
	body, _ := json.Marshal([]any{req["system"].([]any)[0], req["tools"]})
	if strings.Contains(strings.ToLower(string(body)), "web search") || strings.Contains(string(body), "WebSearch") || strings.Contains(string(body), "web_search") {
		t.Errorf("the request mentions web search:\n%s", body)
	}
}
