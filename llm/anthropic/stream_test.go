package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/llm"
	"github.com/google/go-cmp/cmp"
)

const msgStart = `{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-test-1","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":472,"cache_creation_input_tokens":0,"cache_read_input_tokens":100,"output_tokens":2,"service_tier":"standard"}}}`

func TestStreamDecoding(t *testing.T) {
	tests := []struct {
		name       string
		body       string
		want       *llm.Response
		wantDeltas []llm.Delta
	}{
		{
			name: "text with ping and padded JSON",
			body: event("message_start", msgStart) +
				event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`) +
				event("ping", `{"type": "ping"}`) +
				event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`) +
				event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":", world"}     }`) +
				event("content_block_stop", `{"type":"content_block_stop","index":0           }`) +
				event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":12}}`) +
				event("message_stop", `{"type":"message_stop"       }`),
			want: &llm.Response{
				ID: "msg_01", Model: "claude-test-1",
				Content:    []llm.Block{llm.Text("Hello, world")},
				StopReason: llm.StopEndTurn,
				Usage:      llm.Usage{InputTokens: 472, OutputTokens: 12, CacheReadInputTokens: 100},
			},
			wantDeltas: []llm.Delta{
				{Kind: llm.DeltaText, Index: 0, Text: "Hello"},
				{Kind: llm.DeltaText, Index: 0, Text: ", world"},
			},
		},
		{
			name: "tool_use with input_json_delta fragments",
			body: event("message_start", msgStart) +
				event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`) +
				event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Checking."}}`) +
				event("content_block_stop", `{"type":"content_block_stop","index":0}`) +
				event("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01","name":"get_weather","input":{}}}`) +
				event("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}`) +
				event("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"location\": \"San"}}`) +
				event("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":" Francisco\", \"unit\""}}`) +
				event("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":": \"celsius\"}"}}`) +
				event("content_block_stop", `{"type":"content_block_stop","index":1}`) +
				event("content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_02","name":"list","input":{}}}`) +
				event("content_block_stop", `{"type":"content_block_stop","index":2}`) +
				event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":79}}`) +
				event("message_stop", `{"type":"message_stop"}`),
			want: &llm.Response{
				ID: "msg_01", Model: "claude-test-1",
				Content: []llm.Block{
					llm.Text("Checking."),
					{Type: llm.BlockToolUse, ID: "toolu_01", Name: "get_weather", Input: json.RawMessage(`{"location":"San Francisco","unit":"celsius"}`)},
					{Type: llm.BlockToolUse, ID: "toolu_02", Name: "list", Input: json.RawMessage(`{}`)},
				},
				StopReason: llm.StopToolUse,
				Usage:      llm.Usage{InputTokens: 472, OutputTokens: 79, CacheReadInputTokens: 100},
			},
			wantDeltas: []llm.Delta{
				{Kind: llm.DeltaText, Index: 0, Text: "Checking."},
				{Kind: llm.DeltaToolUse, Index: 1, ID: "toolu_01", Name: "get_weather"},
				{Kind: llm.DeltaToolUse, Index: 2, ID: "toolu_02", Name: "list"},
			},
		},
		{
			name: "thinking, signature and redacted thinking pass through",
			body: event("message_start", msgStart) +
				event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`) +
				event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me think"}}`) +
				event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":" about it."}}`) +
				event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":""}}`) +
				event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3h"}}`) +
				event("content_block_stop", `{"type":"content_block_stop","index":0}`) +
				event("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4a"}}`) +
				event("content_block_stop", `{"type":"content_block_stop","index":1}`) +
				event("content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}`) +
				event("content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"42"}}`) +
				event("content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"citations_delta","citation":{"type":"char_location","cited_text":"x"}}}`) +
				event("content_block_stop", `{"type":"content_block_stop","index":2}`) +
				event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":30}}`) +
				event("message_stop", `{"type":"message_stop"}`),
			want: &llm.Response{
				ID: "msg_01", Model: "claude-test-1",
				Content: []llm.Block{
					{Type: llm.BlockThinking, Thinking: "Let me think about it.", Signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3h"},
					{Type: llm.BlockRedactedThinking, Data: "EmwKAhgBEgy3va3pzix/LafPsn4a"},
					{Type: llm.BlockText, Text: "42", Citations: json.RawMessage(`[{"type":"char_location","cited_text":"x"}]`)},
				},
				StopReason: llm.StopEndTurn,
				Usage:      llm.Usage{InputTokens: 472, OutputTokens: 30, CacheReadInputTokens: 100},
			},
			wantDeltas: []llm.Delta{
				{Kind: llm.DeltaThinking, Index: 0, Text: "Let me think"},
				{Kind: llm.DeltaThinking, Index: 0, Text: " about it."},
				{Kind: llm.DeltaText, Index: 2, Text: "42"},
			},
		},
		{
			name: "interleaved blocks are assembled by index",
			body: event("message_start", msgStart) +
				event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`) +
				event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}`) +
				event("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_9","name":"read","input":{}}}`) +
				event("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"path\":"}}`) +
				event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"b"}}`) +
				event("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"x.go\"}"}}`) +
				event("content_block_stop", `{"type":"content_block_stop","index":1}`) +
				event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"c"}}`) +
				event("content_block_stop", `{"type":"content_block_stop","index":0}`) +
				event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":7}}`) +
				event("message_stop", `{"type":"message_stop"}`),
			want: &llm.Response{
				ID: "msg_01", Model: "claude-test-1",
				Content: []llm.Block{
					llm.Text("abc"),
					{Type: llm.BlockToolUse, ID: "toolu_9", Name: "read", Input: json.RawMessage(`{"path":"x.go"}`)},
				},
				StopReason: llm.StopToolUse,
				Usage:      llm.Usage{InputTokens: 472, OutputTokens: 7, CacheReadInputTokens: 100},
			},
			wantDeltas: []llm.Delta{
				{Kind: llm.DeltaText, Index: 0, Text: "a"},
				{Kind: llm.DeltaToolUse, Index: 1, ID: "toolu_9", Name: "read"},
				{Kind: llm.DeltaText, Index: 0, Text: "b"},
				{Kind: llm.DeltaText, Index: 0, Text: "c"},
			},
		},
		{
			name: "usage is cumulative: latest values win, absent fields keep theirs",
			body: event("message_start", msgStart) +
				event("message_delta", `{"type":"message_delta","delta":{"stop_reason":null},"usage":{"output_tokens":40}}`) +
				event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"input_tokens":500,"cache_creation_input_tokens":7,"output_tokens":90}}`) +
				event("message_stop", `{"type":"message_stop"}`),
			want: &llm.Response{
				ID: "msg_01", Model: "claude-test-1",
				Content:    []llm.Block{},
				StopReason: llm.StopMaxTokens,
				Usage:      llm.Usage{InputTokens: 500, OutputTokens: 90, CacheCreationInputTokens: 7, CacheReadInputTokens: 100},
			},
		},
		{
			name: "unknown events and block types are skipped",
			body: event("message_start", msgStart) +
				event("brand_new_event", `{"type":"brand_new_event","x":1}`) +
				event("mystery", `not json at all`) +
				event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"container_upload","file_id":"f_1"}}`) +
				event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"mystery_delta","x":"y"}}`) +
				event("content_block_stop", `{"type":"content_block_stop","index":0}`) +
				event("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":"Found"}}`) +
				event("content_block_stop", `{"type":"content_block_stop","index":1}`) +
				event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}`) +
				event("message_stop", `{"type":"message_stop"}`),
			want: &llm.Response{
				ID: "msg_01", Model: "claude-test-1",
				Content:    []llm.Block{llm.Text("Found")},
				StopReason: llm.StopEndTurn,
				Usage:      llm.Usage{InputTokens: 472, OutputTokens: 3, CacheReadInputTokens: 100},
			},
			wantDeltas: []llm.Delta{{Kind: llm.DeltaText, Index: 1, Text: "Found"}},
		},
		{
			name: "CRLF framing and multi-line data",
			body: strings.ReplaceAll(event("message_start", msgStart), "\n", "\r\n") +
				"event: content_block_start\r\ndata: {\"type\":\"content_block_start\",\r\ndata: \"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\r\n\r\n" +
				": comment\r\n" +
				strings.ReplaceAll(event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ok"}}`), "\n", "\r\n") +
				strings.ReplaceAll(event("content_block_stop", `{"type":"content_block_stop","index":0}`), "\n", "\r\n") +
				strings.ReplaceAll(event("message_stop", `{"type":"message_stop"}`), "\n", "\r\n"),
			want: &llm.Response{
				ID: "msg_01", Model: "claude-test-1",
				Content: []llm.Block{llm.Text("ok")},
				Usage:   llm.Usage{InputTokens: 472, OutputTokens: 2, CacheReadInputTokens: 100},
			},
			wantDeltas: []llm.Delta{{Kind: llm.DeltaText, Index: 0, Text: "ok"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newFakeAPI(t, sseBody(tt.body))
			p, _ := newTestProvider(t, api, Config{})
			deltas, sink := collect()
			got, err := p.Stream(context.Background(), userRequest("hi"), sink)
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantDeltas, *deltas); diff != "" {
				t.Errorf("deltas (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStreamSendsHeadersAndPath(t *testing.T) {
	api := newFakeAPI(t, sseBody(textStream("claude-test", "x")))
	p, _ := newTestProvider(t, api, Config{Model: "claude-configured"})
	if _, err := p.Stream(context.Background(), userRequest("hi"), nil); err != nil {
		t.Fatal(err)
	}
	reqs := api.received()
	if len(reqs) != 1 {
		t.Fatalf("got %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	got := map[string]string{
		"path":              r.Path,
		"x-api-key":         r.Header.Get("X-Api-Key"),
		"anthropic-version": r.Header.Get("Anthropic-Version"),
		"content-type":      r.Header.Get("Content-Type"),
	}
	want := map[string]string{
		"path":              "/v1/messages",
		"x-api-key":         testKey,
		"anthropic-version": "2023-06-01",
		"content-type":      "application/json",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
	wantBody := `{"model":"claude-configured","max_tokens":8192,"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}],"stream":true}`
	if r.Body != wantBody {
		t.Errorf("body\n got %s\nwant %s", r.Body, wantBody)
	}
}

func TestStreamMalformedToolInput(t *testing.T) {
	stream := func(stop string, fragments ...string) string {
		var b strings.Builder
		b.WriteString(event("message_start", msgStart))
		b.WriteString(event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"write","input":{}}}`))
		for _, f := range fragments {
			j, _ := json.Marshal(f)
			b.WriteString(event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":`+string(j)+`}}`))
		}
		b.WriteString(event("content_block_stop", `{"type":"content_block_stop","index":0}`))
		b.WriteString(event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"`+stop+`"},"usage":{"output_tokens":9}}`))
		b.WriteString(event("message_stop", `{"type":"message_stop"}`))
		return b.String()
	}
	tests := []struct {
		name      string
		stop      string
		fragments []string
		wantInput json.RawMessage
		wantText  string
	}{
		{
			name:      "truncated object is repaired and the raw text kept",
			stop:      "tool_use",
			fragments: []string{`{"path": "a.txt", `, `"content": "hello wor`},
			wantInput: json.RawMessage(`{"path":"a.txt","content":"hello wor"}`),
			wantText:  `{"path": "a.txt", "content": "hello wor`,
		},
		{
			name:      "a call cut off by max_tokens is not repaired into a runnable input",
			stop:      "max_tokens",
			fragments: []string{`{"path": "a.txt", `, `"content": "hello wor`},
			wantText:  `{"path": "a.txt", "content": "hello wor`,
		},
		{
			name:      "a call cut off by max_tokens stays unrunnable even when it parses",
			stop:      "max_tokens",
			fragments: []string{`{"path": "a.txt"}`},
			wantText:  `{"path": "a.txt"}`,
		},
		{
			name:      "garbage leaves Input nil with the raw text",
			stop:      "tool_use",
			fragments: []string{`{"path": "a.txt"}}}`},
			wantText:  `{"path": "a.txt"}}}`,
		},
		{
			name:      "a non-object is not a tool input",
			stop:      "tool_use",
			fragments: []string{`["a", "b"]`},
			wantText:  `["a", "b"]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newFakeAPI(t, sseBody(stream(tt.stop, tt.fragments...)))
			p, _ := newTestProvider(t, api, Config{})
			got, err := p.Stream(context.Background(), userRequest("hi"), nil)
			if err != nil {
				t.Fatal(err)
			}
			want := []llm.Block{{Type: llm.BlockToolUse, ID: "toolu_1", Name: "write", Input: tt.wantInput, Text: tt.wantText}}
			if diff := cmp.Diff(want, got.Content); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStreamMaxTokensCutsOffOnlyTheStreamingCall: with stop_reason
// max_tokens, only the block being streamed (the last started) was cut
// off; a tool call completed before it keeps its input.
func TestStreamMaxTokensCutsOffOnlyTheStreamingCall(t *testing.T) {
	toolBlock := func(i int, id, input string) string {
		j, _ := json.Marshal(input)
		return event("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":%q,"name":"write","input":{}}}`, i, id)) +
			event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, i, j)) +
			event("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
	}
	tail := event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":9}}`) +
		event("message_stop", `{"type":"message_stop"}`)
	body := event("message_start", msgStart) + toolBlock(0, "toolu_1", `{"path":"a"}`) + toolBlock(1, "toolu_2", `{"path":"b","content":"x`) + tail
	api := newFakeAPI(t, sseBody(body))
	p, _ := newTestProvider(t, api, Config{})
	got, err := p.Stream(context.Background(), userRequest("hi"), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Block{
		{Type: llm.BlockToolUse, ID: "toolu_1", Name: "write", Input: json.RawMessage(`{"path":"a"}`)},
		{Type: llm.BlockToolUse, ID: "toolu_2", Name: "write", Text: `{"path":"b","content":"x`},
	}
	if diff := cmp.Diff(want, got.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	// A text block after the call: the call was complete.
	textAfter := event("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":"and then"}}`) +
		event("content_block_stop", `{"type":"content_block_stop","index":1}`)
	api = newFakeAPI(t, sseBody(event("message_start", msgStart)+toolBlock(0, "toolu_1", `{"path":"a"}`)+textAfter+tail))
	p, _ = newTestProvider(t, api, Config{})
	got, err = p.Stream(context.Background(), userRequest("hi"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if in := string(got.Content[0].Input); in != `{"path":"a"}` {
		t.Errorf("a call completed before the cut lost its input: %q", in)
	}
}

func TestStreamFailures(t *testing.T) {
	partialText := event("message_start", msgStart) +
		event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`) +
		event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Partial"}}`)
	wantPartial := &llm.Response{
		ID: "msg_01", Model: "claude-test-1",
		Content: []llm.Block{llm.Text("Partial")},
		Usage:   llm.Usage{InputTokens: 472, OutputTokens: 2, CacheReadInputTokens: 100},
	}
	tests := []struct {
		name        string
		script      func(t *testing.T) func(w http.ResponseWriter, r *http.Request)
		wantErr     *llm.Error // Err is not compared
		wantPartial *llm.Response
	}{
		{
			name: "error event after HTTP 200",
			script: func(t *testing.T) func(w http.ResponseWriter, r *http.Request) {
				return sseBody(partialText + event("error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
			},
			wantErr:     &llm.Error{Kind: llm.ErrOverloaded, StatusCode: 200, Message: "Overloaded"},
			wantPartial: wantPartial,
		},
		{
			name: "body ends without message_stop",
			script: func(t *testing.T) func(w http.ResponseWriter, r *http.Request) {
				return sseBody(partialText)
			},
			wantErr:     &llm.Error{Kind: llm.ErrStream, Message: "stream ended before message_stop"},
			wantPartial: wantPartial,
		},
		{
			name: "malformed event JSON",
			script: func(t *testing.T) func(w http.ResponseWriter, r *http.Request) {
				return sseBody(partialText + event("content_block_delta", `{"type":"content_block_delta","index":0,`))
			},
			wantErr:     &llm.Error{Kind: llm.ErrStream, Message: "malformed content_block_delta event: unexpected end of JSON input"},
			wantPartial: wantPartial,
		},
		{
			name: "delta for a block that never started",
			script: func(t *testing.T) func(w http.ResponseWriter, r *http.Request) {
				return sseBody(partialText + event("content_block_delta", `{"type":"content_block_delta","index":5,"delta":{"type":"text_delta","text":"x"}}`))
			},
			wantErr:     &llm.Error{Kind: llm.ErrStream, Message: "content_block_delta for unknown index 5"},
			wantPartial: wantPartial,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newFakeAPI(t, tt.script(t))
			p, sleeper := newTestProvider(t, api, Config{})
			got, err := p.Stream(context.Background(), userRequest("hi"), nil)
			var apiErr *llm.Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("err = %v, want *llm.Error", err)
			}
			if diff := cmp.Diff(tt.wantErr, apiErr, cmpIgnoreErr); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantPartial, got); diff != "" {
				t.Errorf("partial response (-want +got):\n%s", diff)
			}
			if n := len(api.received()); n != 1 {
				t.Errorf("mid-stream failure sent %d requests, want 1 (never retried)", n)
			}
			if s := sleeper.durations(); len(s) != 0 {
				t.Errorf("slept %v, want no retry", s)
			}
		})
	}
}

var cmpIgnoreErr = cmp.FilterPath(func(p cmp.Path) bool {
	return p.Last().String() == ".Err"
}, cmp.Ignore())
