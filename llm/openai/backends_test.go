package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/llm"
)

// What OpenAI-compatible servers other than OpenAI send, each written from
// the server's documented (or commonly reported) behaviour.

var generatedID = regexp.MustCompile(`^call_[0-9a-f]{24}$`)

func decodeBody(t *testing.T, body string) (*llm.Response, []llm.Delta) {
	t.Helper()
	var deltas []llm.Delta
	resp, err := decodeStream(strings.NewReader(body), func(d llm.Delta) { deltas = append(deltas, d) })
	if err != nil {
		t.Fatalf("decodeStream: %v", err)
	}
	return resp, deltas
}

func toolUses(resp *llm.Response) []llm.Block {
	var out []llm.Block
	for _, b := range resp.Content {
		if b.Type == llm.BlockToolUse {
			out = append(out, b)
		}
	}
	return out
}

// Gemini's compatible endpoint sends whole calls without index, type or
// id (and its thought signature in extra_content); each is its own call
// with an id of its own, and the signature is kept to be sent back.
func TestToolCallsWithoutIndexOrID(t *testing.T) {
	body := chunkEvent(`{"role":"assistant","tool_calls":[`+
		`{"function":{"name":"Read","arguments":"{\"file_path\":\"a.go\"}"},"extra_content":{"google":{"thought_signature":"c2ln"}}},`+
		`{"function":{"name":"Read","arguments":"{\"file_path\":\"b.go\"}"}}]}`, "") +
		chunkEvent(`{}`, "stop") + done
	resp, deltas := decodeBody(t, body)
	calls := toolUses(resp)
	if len(calls) != 2 {
		t.Fatalf("got %d tool calls, want 2: %+v", len(calls), resp.Content)
	}
	if calls[0].ID == calls[1].ID || !generatedID.MatchString(calls[0].ID) || !generatedID.MatchString(calls[1].ID) {
		t.Errorf("ids %q and %q: want two distinct generated call_ ids", calls[0].ID, calls[1].ID)
	}
	if string(calls[0].Input) != `{"file_path":"a.go"}` || string(calls[1].Input) != `{"file_path":"b.go"}` {
		t.Errorf("inputs %s, %s", calls[0].Input, calls[1].Input)
	}
	if string(calls[0].Raw) != `{"google":{"thought_signature":"c2ln"}}` || calls[1].Raw != nil {
		t.Errorf("extra_content kept as %s and %s", calls[0].Raw, calls[1].Raw)
	}
	if len(deltas) != 2 || deltas[0].ID != calls[0].ID || deltas[1].ID != calls[1].ID {
		t.Errorf("tool_use deltas %+v do not announce the final ids", deltas)
	}
	if resp.StopReason != llm.StopToolUse {
		t.Errorf("stop reason %q", resp.StopReason)
	}
}

// A call without index continues the latest call when it has neither a
// name nor an id (arguments streamed in pieces).
func TestToolCallFragmentsWithoutIndex(t *testing.T) {
	body := chunkEvent(`{"tool_calls":[{"id":"call_a","type":"function","function":{"name":"Bash","arguments":"{\"comm"}}]}`, "") +
		chunkEvent(`{"tool_calls":[{"function":{"arguments":"and\":\"ls\"}"}}]}`, "") +
		chunkEvent(`{}`, "tool_calls") + done
	resp, _ := decodeBody(t, body)
	calls := toolUses(resp)
	if len(calls) != 1 || calls[0].ID != "call_a" || string(calls[0].Input) != `{"command":"ls"}` {
		t.Errorf("got %+v", resp.Content)
	}
}

// Servers that send every whole call as index 0, each with its own id:
// two calls, not one with both argument objects run together.
func TestWholeToolCallsAllIndexZero(t *testing.T) {
	body := chunkEvent(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"Read","arguments":"{\"file_path\":\"a\"}"}}]}`, "") +
		chunkEvent(`{"tool_calls":[{"index":0,"id":"call_2","type":"function","function":{"name":"Read","arguments":"{\"file_path\":\"b\"}"}}]}`, "") +
		chunkEvent(`{}`, "stop")
	resp, _ := decodeBody(t, body)
	calls := toolUses(resp)
	if len(calls) != 2 || calls[0].ID != "call_1" || calls[1].ID != "call_2" ||
		string(calls[0].Input) != `{"file_path":"a"}` || string(calls[1].Input) != `{"file_path":"b"}` {
		t.Errorf("got %+v", resp.Content)
	}
}

// An id a server gives two calls of one response (Gemini) is made unique:
// the loop pairs results by id and the editor shows one card per id.
func TestDuplicateToolCallIDs(t *testing.T) {
	body := chunkEvent(`{"tool_calls":[{"index":0,"id":"function-call-1","type":"function","function":{"name":"Read","arguments":"{}"}},`+
		`{"index":1,"id":"function-call-1","type":"function","function":{"name":"Bash","arguments":"{}"}}]}`, "tool_calls") + done
	resp, _ := decodeBody(t, body)
	calls := toolUses(resp)
	if len(calls) != 2 || calls[0].ID != "function-call-1" || !generatedID.MatchString(calls[1].ID) {
		t.Errorf("got %+v", calls)
	}
}

// vLLM sends reasoning and reasoning_content with the same text, and
// OpenRouter reasoning and reasoning_details: the thinking is the text
// once. reasoning_details alone is read.
func TestReasoningFieldsNotDoubled(t *testing.T) {
	cases := map[string]string{
		"vllm both": chunkEvent(`{"reasoning_content":"Think ","reasoning":"Think "}`, "") +
			chunkEvent(`{"reasoning_content":"more.","reasoning":"more."}`, "") + chunkEvent(`{"content":"Hi"}`, "stop") + done,
		"openrouter details": chunkEvent(`{"reasoning":"Think ","reasoning_details":[{"type":"reasoning.text","text":"Think ","format":"unknown","index":0}]}`, "") +
			chunkEvent(`{"reasoning":"more.","reasoning_details":[{"type":"reasoning.text","text":"more.","format":"unknown","index":0}]}`, "") +
			chunkEvent(`{"content":"Hi"}`, "stop") + done,
		"details only": chunkEvent(`{"reasoning_details":[{"type":"reasoning.summary","summary":"Think ","index":0},{"type":"reasoning.encrypted","data":"eyJ4","index":1}]}`, "") +
			chunkEvent(`{"reasoning_details":[{"type":"reasoning.text","text":"more.","index":0}]}`, "") +
			chunkEvent(`{"content":"Hi"}`, "stop") + done,
	}
	for name, body := range cases {
		resp, deltas := decodeBody(t, body)
		var streamed string
		for _, d := range deltas {
			if d.Kind == llm.DeltaThinking {
				streamed += d.Text
			}
		}
		if len(resp.Content) != 2 || resp.Content[0].Thinking != "Think more." || streamed != "Think more." {
			t.Errorf("%s: thinking %q (streamed %q), want it once", name, resp.Content[0].Thinking, streamed)
		}
	}
}

// Groq puts the usage in x_groq.usage on the last chunk; Together and
// Fireworks put it on the last chunk that still has choices.
func TestUsageWhereServersPutIt(t *testing.T) {
	groq := data(`{"id":"chatcmpl-g","object":"chat.completion.chunk","created":1,"model":"llama-3.3-70b-versatile","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}],"x_groq":{"id":"req_1"}}`) +
		data(`{"id":"chatcmpl-g","object":"chat.completion.chunk","created":1,"model":"llama-3.3-70b-versatile","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"x_groq":{"id":"req_1","usage":{"queue_time":0.01,"prompt_tokens":40,"prompt_time":0.002,"completion_tokens":3,"completion_time":0.01,"total_tokens":43,"total_time":0.012}}}`) + done
	together := data(`{"id":"t1","object":"chat.completion.chunk","created":1,"model":"meta-llama/Llama-3.3-70B-Instruct-Turbo","choices":[{"index":0,"text":"Hi","delta":{"content":"Hi"},"finish_reason":null}],"usage":null}`) +
		data(`{"id":"t1","object":"chat.completion.chunk","created":1,"model":"meta-llama/Llama-3.3-70B-Instruct-Turbo","choices":[{"index":0,"text":"","delta":{"content":""},"finish_reason":"stop"}],"usage":{"prompt_tokens":40,"completion_tokens":3,"total_tokens":43,"cached_tokens":0}}`) + done
	for name, body := range map[string]string{"groq": groq, "together": together} {
		resp, _ := decodeBody(t, body)
		if resp.Usage.InputTokens != 40 || resp.Usage.OutputTokens != 3 {
			t.Errorf("%s: usage %+v, want 40 in and 3 out", name, resp.Usage)
		}
	}
}

// OpenRouter reports an upstream failure inside the 200 stream with the
// upstream HTTP status as the code and finish_reason "error"; a
// finish_reason "error" alone is a failure too, never a finished turn.
func TestErrorChunksWithStatusCodes(t *testing.T) {
	processing := ": OPENROUTER PROCESSING\n\n"
	cases := []struct {
		name string
		body string
		want llm.ErrorKind
	}{
		{"rate limit", processing + chunkEvent(`{"content":"Wo"}`, "") +
			data(`{"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"anthropic/claude-sonnet-4.5","error":{"code":429,"message":"Provider returned error: rate limited"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}`), llm.ErrRateLimit},
		{"bad gateway", data(`{"error":{"code":502,"message":"Upstream error"}}`), llm.ErrServer},
		{"finish error", chunkEvent(`{"content":"Wo"}`, "") + chunkEvent(`{}`, "error") + done, llm.ErrServer},
	}
	for _, tc := range cases {
		_, err := decodeStream(strings.NewReader(tc.body), nil)
		var e *llm.Error
		if !errors.As(err, &e) || e.Kind != tc.want || e.StatusCode != 200 {
			t.Errorf("%s: err %v, want a %s error", tc.name, err, tc.want)
		}
	}
}

// OpenRouter's keep-alive comments and Azure's first chunk (no choices,
// no id, prompt_filter_results) change nothing.
func TestCommentsAndAzureFilterChunk(t *testing.T) {
	body := ": OPENROUTER PROCESSING\n\n" +
		data(`{"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[{"prompt_index":0,"content_filter_results":{"hate":{"filtered":false,"severity":"safe"}}}]}`) +
		": OPENROUTER PROCESSING\n\n" +
		data(`{"choices":[{"content_filter_results":{},"delta":{"content":"Hi","role":"assistant"},"finish_reason":null,"index":0}],"created":1,"id":"chatcmpl-az","model":"gpt-4o-2024-11-20","object":"chat.completion.chunk","system_fingerprint":"fp_1"}`) +
		data(`{"choices":[{"content_filter_results":{},"delta":{},"finish_reason":"stop","index":0}],"created":1,"id":"chatcmpl-az","model":"gpt-4o-2024-11-20","object":"chat.completion.chunk"}`) + done
	resp, _ := decodeBody(t, body)
	if resp.ID != "chatcmpl-az" || resp.Model != "gpt-4o-2024-11-20" || len(resp.Content) != 1 || resp.Content[0].Text != "Hi" || resp.StopReason != llm.StopEndTurn {
		t.Errorf("got %+v", resp)
	}
}

// switchedHistory is a session that ran on Anthropic (signed thinking,
// redacted thinking, toolu_ ids), then on a server that made ids other
// backends refuse (empty, reused, too long, with a space).
func switchedHistory() []llm.Message {
	use := func(id string) llm.Block {
		return llm.Block{Type: llm.BlockToolUse, ID: id, Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)}
	}
	res := func(id string) llm.Block {
		return llm.Block{Type: llm.BlockToolResult, ToolUseID: id, Content: []llm.Block{llm.Text("ok")}}
	}
	return []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Block{llm.Text("go")}},
		{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockThinking, Thinking: "plan", Signature: "sig"},
			{Type: llm.BlockRedactedThinking, Data: "cmVk"}, use("toolu_01XYZ"), use("toolu_02XYZ")}},
		{Role: llm.RoleUser, Content: []llm.Block{res("toolu_01XYZ"), res("toolu_02XYZ")}},
		{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockThinking, Thinking: "only thinking, cut off"}}},
		{Role: llm.RoleUser, Content: []llm.Block{llm.Text("go on")}},
		{Role: llm.RoleAssistant, Content: []llm.Block{use(""), use("functions.Bash:0"), use(strings.Repeat("x", 50)), use("call 7")}},
		{Role: llm.RoleUser, Content: []llm.Block{res(""), res("functions.Bash:0"), res(strings.Repeat("x", 50)), res("call 7")}},
		{Role: llm.RoleAssistant, Content: []llm.Block{use("functions.Bash:0")}},
		{Role: llm.RoleUser, Content: []llm.Block{res("functions.Bash:0")}},
	}
}

type sentMessage struct {
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []struct {
		ID           string          `json:"id"`
		ExtraContent json.RawMessage `json:"extra_content"`
	} `json:"tool_calls"`
	ToolCallID string `json:"tool_call_id"`
}

func encodeSwitched(t *testing.T, be backend, msgs []llm.Message) []sentMessage {
	t.Helper()
	raw, err := encodeFor(&llm.Request{Messages: msgs}, be, "", true)
	if err != nil {
		t.Fatal(err)
	}
	var body struct{ Messages []sentMessage }
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatal(err)
	}
	return body.Messages
}

// checkPairing fails unless every id matches valid, is unique, and the
// tool messages after each assistant message answer its calls in order.
func checkPairing(t *testing.T, label string, msgs []sentMessage, valid *regexp.Regexp) {
	t.Helper()
	seen := map[string]bool{}
	for i, m := range msgs {
		if m.Role != "assistant" {
			continue
		}
		for k, c := range m.ToolCalls {
			if !valid.MatchString(c.ID) || seen[c.ID] {
				t.Errorf("%s: message %d: id %q invalid or repeated", label, i, c.ID)
			}
			seen[c.ID] = true
			if i+1+k >= len(msgs) || msgs[i+1+k].Role != "tool" || msgs[i+1+k].ToolCallID != c.ID {
				t.Errorf("%s: message %d: call %q is not answered by the tool message after it", label, i, c.ID)
			}
		}
	}
}

// After /model from Anthropic or a lax server to another backend, every
// tool call id is one the backend takes, results still pair, and an
// assistant message with nothing to send (thinking only) is left out.
func TestSwitchedHistoryToolCallIDs(t *testing.T) {
	openaiIDs := regexp.MustCompile(`^[!-~]{1,40}$`)
	msgs := encodeSwitched(t, backendFor("gpt-4o", "https://api.openai.com/v1"), switchedHistory())
	checkPairing(t, "gpt-4o", msgs, openaiIDs)
	if msgs[1].ToolCalls[0].ID != "toolu_01XYZ" || msgs[5].ToolCalls[1].ID != "functions.Bash:0" {
		t.Errorf("ids every backend takes were renamed: %q, %q", msgs[1].ToolCalls[0].ID, msgs[5].ToolCalls[1].ID)
	}
	for i, m := range msgs {
		if m.Role == "assistant" && len(m.ToolCalls) == 0 && len(m.Content) == 0 {
			t.Errorf("message %d: empty assistant message sent", i)
		}
	}

	mistral := regexp.MustCompile(`^[a-zA-Z0-9]{9}$`)
	for _, be := range []backend{backendFor("mistral-large-latest", ""), backendFor("my-finetune", "https://api.mistral.ai/v1")} {
		checkPairing(t, be.model, encodeSwitched(t, be, switchedHistory()), mistral)
	}
}

// Gemini gets each call's extra_content back; a turn without one (made by
// another provider) carries the documented skip value on its first call
// for Gemini 3; no other backend gets extra_content.
func TestGeminiExtraContent(t *testing.T) {
	sig := json.RawMessage(`{"google":{"thought_signature":"c2ln"}}`)
	history := []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Block{llm.Text("go")}},
		{Role: llm.RoleAssistant, Content: []llm.Block{
			{Type: llm.BlockToolUse, ID: "toolu_01", Name: "Bash", Input: json.RawMessage(`{}`)},
			{Type: llm.BlockToolUse, ID: "toolu_02", Name: "Bash", Input: json.RawMessage(`{}`)}}},
		{Role: llm.RoleUser, Content: []llm.Block{
			{Type: llm.BlockToolResult, ToolUseID: "toolu_01"}, {Type: llm.BlockToolResult, ToolUseID: "toolu_02"}}},
		{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockToolUse, ID: "call_g", Name: "Bash", Input: json.RawMessage(`{}`), Raw: sig}}},
		{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ToolUseID: "call_g"}}},
	}
	extras := func(model, baseURL string) []string {
		var out []string
		for _, m := range encodeSwitched(t, backendFor(model, baseURL), history) {
			for _, c := range m.ToolCalls {
				out = append(out, string(c.ExtraContent))
			}
		}
		return out
	}
	skip := `{"google":{"thought_signature":"skip_thought_signature_validator"}}`
	if got, want := strings.Join(extras("gemini-3-pro-preview", "https://generativelanguage.googleapis.com/v1beta/openai"), "|"), skip+"||"+string(sig); got != want {
		t.Errorf("gemini-3: extra_content %q, want %q", got, want)
	}
	if got, want := strings.Join(extras("gemini-2.5-flash", ""), "|"), "||"+string(sig); got != want {
		t.Errorf("gemini-2.5: extra_content %q, want %q", got, want)
	}
	if got := strings.Join(extras("gpt-4o", "https://api.openai.com/v1"), ""); got != "" {
		t.Errorf("gpt-4o got extra_content %q", got)
	}
}

// A server that refuses stream_options gets the request again without it,
// and every later request goes without it; one that asks for
// max_completion_tokens gets that field.
func TestResendWithoutRefusedField(t *testing.T) {
	ok := sseBody(chunkEvent(`{"content":"Hi"}`, "stop") + done)
	api := newFakeAPI(t,
		errorBody(http.StatusBadRequest, nil, `{"error":{"message":"Unrecognized request argument supplied: stream_options","type":"invalid_request_error"}}`),
		ok)
	p, _ := newTestProvider(t, api, Config{})
	for range 2 {
		if _, err := p.Stream(context.Background(), userRequest("hi"), nil); err != nil {
			t.Fatal(err)
		}
	}
	got := api.received()
	if len(got) != 3 || !strings.Contains(got[0].Body, "stream_options") ||
		strings.Contains(got[1].Body, "stream_options") || strings.Contains(got[2].Body, "stream_options") {
		t.Errorf("requests: %d; stream_options in each: %v %v", len(got), got[0].Body, got[len(got)-1].Body)
	}

	api = newFakeAPI(t,
		errorBody(http.StatusBadRequest, nil, `{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","type":"invalid_request_error","param":"max_tokens","code":"unsupported_parameter"}}`),
		ok)
	p, _ = newTestProvider(t, api, Config{Model: "new-reasoner", MaxTokens: 500})
	if _, err := p.Stream(context.Background(), userRequest("hi"), nil); err != nil {
		t.Fatal(err)
	}
	if got := api.received(); len(got) != 2 || !strings.Contains(got[1].Body, `"max_completion_tokens":500`) || strings.Contains(got[1].Body, `"max_tokens"`) {
		t.Errorf("resent body: %s", got[len(got)-1].Body)
	}

	api = newFakeAPI(t, errorBody(http.StatusBadRequest, nil, `{"error":{"message":"messages: bad","type":"invalid_request_error"}}`), ok)
	p, _ = newTestProvider(t, api, Config{})
	if _, err := p.Stream(context.Background(), userRequest("hi"), nil); err == nil || len(api.received()) != 1 {
		t.Errorf("another 400 was resent: err %v, %d requests", err, len(api.received()))
	}
}
