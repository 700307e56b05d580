package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/llm"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

const testKey = "sk-proj-test-SECRET-42"

func data(s string) string { return "data: " + s + "\n\n" }

const done = "data: [DONE]\n\n"

type recorded struct {
	Path   string
	Header http.Header
	Body   string
}

type fakeAPI struct {
	*httptest.Server
	mu       sync.Mutex
	requests []recorded
	scripts  []func(w http.ResponseWriter, r *http.Request)
}

func newFakeAPI(t *testing.T, scripts ...func(w http.ResponseWriter, r *http.Request)) *fakeAPI {
	t.Helper()
	f := &fakeAPI{scripts: scripts}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		n := len(f.requests)
		f.requests = append(f.requests, recorded{Path: r.URL.Path, Header: r.Header.Clone(), Body: string(body)})
		script := f.scripts[min(n, len(f.scripts)-1)]
		f.mu.Unlock()
		script(w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeAPI) received() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.requests...)
}

func sseBody(body string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
	}
}

func errorBody(status int, headers map[string]string, body string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		for k, v := range headers {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

type sleepRecorder struct {
	mu    sync.Mutex
	slept []time.Duration
}

func (s *sleepRecorder) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.slept = append(s.slept, d)
	return ctx.Err()
}

func newTestProvider(t *testing.T, api *fakeAPI, cfg Config, opts ...Option) (*Provider, *sleepRecorder) {
	t.Helper()
	sleeper := &sleepRecorder{}
	if cfg.Model == "" {
		cfg.Model = "gpt-test"
	}
	cfg.BaseURL = api.URL + "/v1"
	all := append([]Option{
		WithHTTPClient(api.Client()),
		WithGetenv(func(k string) string { return map[string]string{DefaultAPIKeyEnv: testKey}[k] }),
		WithSleep(sleeper.sleep),
	}, opts...)
	p, err := New(cfg, all...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	p.policy.Jitter = func() float64 { return 0 }
	return p, sleeper
}

func userRequest(text string) *llm.Request {
	return &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{llm.Text(text)}}}}
}

func chunkEvent(delta string, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return data(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-test-2024","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + f + `}]}`)
}

const usageChunk = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-test-2024","choices":[],"usage":{"prompt_tokens":120,"completion_tokens":30,"total_tokens":150,"prompt_tokens_details":{"cached_tokens":100}}}`

func TestStreamDecoding(t *testing.T) {
	tests := []struct {
		name       string
		body       string
		want       *llm.Response
		wantDeltas []llm.Delta
	}{
		{
			name: "text with usage",
			body: chunkEvent(`{"role":"assistant","content":""}`, "") +
				": keep-alive\n\n" +
				chunkEvent(`{"content":"Hel"}`, "") +
				chunkEvent(`{"content":"lo"}`, "") +
				chunkEvent(`{}`, "stop") +
				data(usageChunk) + done,
			want: &llm.Response{
				ID: "chatcmpl-1", Model: "gpt-test-2024",
				Content:    []llm.Block{llm.Text("Hello")},
				StopReason: llm.StopEndTurn,
				Usage:      llm.Usage{InputTokens: 20, CacheReadInputTokens: 100, OutputTokens: 30},
			},
			wantDeltas: []llm.Delta{
				{Kind: llm.DeltaText, Index: 0, Text: "Hel"},
				{Kind: llm.DeltaText, Index: 0, Text: "lo"},
			},
		},
		{
			name: "tool calls across chunks, interleaved by index",
			body: chunkEvent(`{"role":"assistant","content":"Let me check."}`, "") +
				chunkEvent(`{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}}]}`, "") +
				chunkEvent(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"loc"}}]}`, "") +
				chunkEvent(`{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"get_time","arguments":"{\"tz\":"}}]}`, "") +
				chunkEvent(`{"tool_calls":[{"index":0,"function":{"arguments":"ation\": \"Paris\"}"}}]}`, "") +
				chunkEvent(`{"tool_calls":[{"index":1,"function":{"arguments":"\"CET\"}"}}]}`, "") +
				chunkEvent(`{}`, "tool_calls") + done,
			want: &llm.Response{
				ID: "chatcmpl-1", Model: "gpt-test-2024",
				Content: []llm.Block{
					llm.Text("Let me check."),
					{Type: llm.BlockToolUse, ID: "call_a", Name: "get_weather", Input: json.RawMessage(`{"location":"Paris"}`)},
					{Type: llm.BlockToolUse, ID: "call_b", Name: "get_time", Input: json.RawMessage(`{"tz":"CET"}`)},
				},
				StopReason: llm.StopToolUse,
			},
			wantDeltas: []llm.Delta{
				{Kind: llm.DeltaText, Index: 0, Text: "Let me check."},
				{Kind: llm.DeltaToolUse, Index: 1, ID: "call_a", Name: "get_weather"},
				{Kind: llm.DeltaToolUse, Index: 2, ID: "call_b", Name: "get_time"},
			},
		},
		{
			name: "deepseek reasoning_content becomes thinking; length is max_tokens",
			body: chunkEvent(`{"role":"assistant","content":null,"reasoning_content":"Hmm"}`, "") +
				chunkEvent(`{"content":null,"reasoning_content":", think."}`, "") +
				chunkEvent(`{"content":"42","reasoning_content":null}`, "") +
				data(`{"id":"chatcmpl-1","model":"gpt-test-2024","choices":[{"index":0,"delta":{"content":""},"finish_reason":"length"}],"usage":{"prompt_tokens":5,"completion_tokens":7,"prompt_cache_hit_tokens":3,"prompt_cache_miss_tokens":2}}`) +
				done,
			want: &llm.Response{
				ID: "chatcmpl-1", Model: "gpt-test-2024",
				Content: []llm.Block{
					{Type: llm.BlockThinking, Thinking: "Hmm, think."},
					llm.Text("42"),
				},
				StopReason: llm.StopMaxTokens,
				Usage:      llm.Usage{InputTokens: 2, CacheReadInputTokens: 3, OutputTokens: 7},
			},
			wantDeltas: []llm.Delta{
				{Kind: llm.DeltaThinking, Index: 0, Text: "Hmm"},
				{Kind: llm.DeltaThinking, Index: 0, Text: ", think."},
				{Kind: llm.DeltaText, Index: 1, Text: "42"},
			},
		},
		{
			name: "content_filter is refusal",
			body: chunkEvent(`{"content":"I can"}`, "") + chunkEvent(`{}`, "content_filter") + done,
			want: &llm.Response{
				ID: "chatcmpl-1", Model: "gpt-test-2024",
				Content:    []llm.Block{llm.Text("I can")},
				StopReason: llm.StopRefusal,
			},
			wantDeltas: []llm.Delta{{Kind: llm.DeltaText, Index: 0, Text: "I can"}},
		},
		{
			name: "local server: stop with tool calls, no [DONE]",
			body: chunkEvent(`{"tool_calls":[{"index":0,"id":"call_0","function":{"name":"ls","arguments":"{}"}}]}`, "") +
				chunkEvent(`{}`, "stop"),
			want: &llm.Response{
				ID: "chatcmpl-1", Model: "gpt-test-2024",
				Content:    []llm.Block{{Type: llm.BlockToolUse, ID: "call_0", Name: "ls", Input: json.RawMessage(`{}`)}},
				StopReason: llm.StopToolUse,
			},
			wantDeltas: []llm.Delta{{Kind: llm.DeltaToolUse, Index: 0, ID: "call_0", Name: "ls"}},
		},
		{
			name: "truncated arguments are repaired and kept raw",
			body: chunkEvent(`{"tool_calls":[{"index":0,"id":"call_w","function":{"name":"write","arguments":"{\"path\": \"a\", \"text\": \"hel"}}]}`, "tool_calls") + done,
			want: &llm.Response{
				ID: "chatcmpl-1", Model: "gpt-test-2024",
				Content: []llm.Block{{Type: llm.BlockToolUse, ID: "call_w", Name: "write",
					Input: json.RawMessage(`{"path":"a","text":"hel"}`), Text: `{"path": "a", "text": "hel`}},
				StopReason: llm.StopToolUse,
			},
			wantDeltas: []llm.Delta{{Kind: llm.DeltaToolUse, Index: 0, ID: "call_w", Name: "write"}},
		},
		{
			name: "length: the call being streamed is cut off, never repaired into a runnable input",
			body: chunkEvent(`{"tool_calls":[{"index":0,"id":"call_r","function":{"name":"read","arguments":"{\"path\": \"a\"}"}}]}`, "") +
				chunkEvent(`{"tool_calls":[{"index":1,"id":"call_w","function":{"name":"write","arguments":"{\"path\": \"a\", \"text\": \"hel"}}]}`, "length") + done,
			want: &llm.Response{
				ID: "chatcmpl-1", Model: "gpt-test-2024",
				Content: []llm.Block{
					{Type: llm.BlockToolUse, ID: "call_r", Name: "read", Input: json.RawMessage(`{"path":"a"}`)},
					{Type: llm.BlockToolUse, ID: "call_w", Name: "write", Text: `{"path": "a", "text": "hel`},
				},
				StopReason: llm.StopMaxTokens,
			},
			wantDeltas: []llm.Delta{{Kind: llm.DeltaToolUse, Index: 0, ID: "call_r", Name: "read"}, {Kind: llm.DeltaToolUse, Index: 1, ID: "call_w", Name: "write"}},
		},
		{
			name: "length after text: the complete call keeps its input",
			body: chunkEvent(`{"tool_calls":[{"index":0,"id":"call_r","function":{"name":"read","arguments":"{}"}}]}`, "") +
				chunkEvent(`{"content":"and"}`, "length") + done,
			want: &llm.Response{
				ID: "chatcmpl-1", Model: "gpt-test-2024",
				Content: []llm.Block{
					{Type: llm.BlockToolUse, ID: "call_r", Name: "read", Input: json.RawMessage(`{}`)},
					llm.Text("and"),
				},
				StopReason: llm.StopMaxTokens,
			},
			wantDeltas: []llm.Delta{{Kind: llm.DeltaToolUse, Index: 0, ID: "call_r", Name: "read"}, {Kind: llm.DeltaText, Index: 1, Text: "and"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newFakeAPI(t, sseBody(tt.body))
			p, _ := newTestProvider(t, api, Config{})
			var deltas []llm.Delta
			got, err := p.Stream(context.Background(), userRequest("hi"), func(d llm.Delta) { deltas = append(deltas, d) })
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantDeltas, deltas); diff != "" {
				t.Errorf("deltas (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStreamRequestWire(t *testing.T) {
	api := newFakeAPI(t, sseBody(chunkEvent(`{"content":"x"}`, "stop")+done))
	p, _ := newTestProvider(t, api, Config{Model: "deepseek-chat", MaxTokens: 100})
	if _, err := p.Stream(context.Background(), userRequest("hi"), nil); err != nil {
		t.Fatal(err)
	}
	r := api.received()[0]
	if r.Path != "/v1/chat/completions" {
		t.Errorf("path = %q", r.Path)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
		t.Errorf("Authorization = %q", got)
	}
	want := `{"model":"deepseek-chat","messages":[{"role":"user","content":"hi"}],"max_tokens":100,"stream":true,"stream_options":{"include_usage":true}}`
	if r.Body != want {
		t.Errorf("body\n got %s\nwant %s", r.Body, want)
	}
}

func everyBlockRequest() *llm.Request {
	return &llm.Request{
		Model:     "gpt-from-request",
		MaxTokens: 2048,
		System:    []string{"You are cordis.", "Be brief."},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: []llm.Block{llm.Text("Plain question")}},
			{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("Plain answer")}},
			{Role: llm.RoleUser, Content: []llm.Block{
				llm.Text("What is in this image?"),
				{Type: llm.BlockImage, MediaType: "image/png", Data: "iVBORw0KGgo="},
			}},
			{Role: llm.RoleAssistant, Content: []llm.Block{
				{Type: llm.BlockThinking, Thinking: "not sent back", Signature: "sig"},
				{Type: llm.BlockRedactedThinking, Data: "also not sent"},
				llm.Text("Let me look."),
				{Type: llm.BlockToolUse, ID: "call_1", Name: "Bash", Input: json.RawMessage(`{"command": "ls"}`)},
				{Type: llm.BlockToolUse, ID: "call_2", Name: "Screenshot"},
			}},
			{Role: llm.RoleUser, Content: []llm.Block{
				{Type: llm.BlockToolResult, ToolUseID: "call_1", Content: []llm.Block{llm.Text("a.go"), llm.Text("b.go")}},
				{Type: llm.BlockToolResult, ToolUseID: "call_2", IsError: true, Content: []llm.Block{
					llm.Text("partial capture"),
					{Type: llm.BlockImage, MediaType: "image/jpeg", Data: "/9j/4AAQ"},
				}},
				llm.Text("Now summarise."),
			}},
			{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockToolUse, ID: "call_3", Name: "Read", Input: json.RawMessage(`{"path":"x"}`)}}},
		},
		Tools: []llm.ToolSpec{
			{Name: "Bash", Description: "Run a command.", InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)},
			{Name: "NoSchema"},
		},
		ThinkingBudget: 1024, // ignored by this wire
	}
}

func TestEncodeRequestGolden(t *testing.T) {
	got, err := encodeRequest(everyBlockRequest(), "gpt-override", "max_completion_tokens")
	if err != nil {
		t.Fatal(err)
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, got, "", "  "); err != nil {
		t.Fatal(err)
	}
	indented.WriteByte('\n')
	golden := filepath.Join("testdata", "request_every_block.golden.json")
	if *update {
		if err := os.WriteFile(golden, indented.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(want, indented.Bytes()) {
		t.Errorf("request body differs from %s:\n%s", golden, indented.Bytes())
	}
	again, _ := encodeRequest(everyBlockRequest(), "gpt-override", "max_completion_tokens")
	if !bytes.Equal(got, again) {
		t.Error("encoding is not deterministic")
	}
}

func TestHTTPErrors(t *testing.T) {
	tests := []struct {
		name         string
		status       int
		headers      map[string]string
		body         string
		wantErr      *llm.Error
		wantRequests int
	}{
		{
			name:         "insufficient quota is a spend limit, not retried",
			status:       429,
			body:         `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`,
			wantErr:      &llm.Error{Kind: llm.ErrSpendLimit, StatusCode: 429, Message: "You exceeded your current quota, please check your plan and billing details."},
			wantRequests: 1,
		},
		{
			name:         "deepseek 402 insufficient balance",
			status:       402,
			body:         `{"error":{"message":"Insufficient Balance","type":"unknown_error","param":null,"code":"invalid_request_error"}}`,
			wantErr:      &llm.Error{Kind: llm.ErrSpendLimit, StatusCode: 402, Message: "Insufficient Balance"},
			wantRequests: 1,
		},
		{
			name:         "401 invalid key",
			status:       401,
			body:         `{"error":{"message":"Incorrect API key provided: sk-proj-test-SECRET-42.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			wantErr:      &llm.Error{Kind: llm.ErrAuth, StatusCode: 401, Message: "Incorrect API key provided: [REDACTED]."},
			wantRequests: 1,
		},
		{
			name:         "400 with a numeric code",
			status:       400,
			body:         `{"error":{"message":"bad","type":"invalid_request_error","code":400}}`,
			wantErr:      &llm.Error{Kind: llm.ErrInvalid, StatusCode: 400, Message: "bad"},
			wantRequests: 1,
		},
		{
			name:         "error as a plain string",
			status:       404,
			body:         `{"error":"model 'llama9' not found"}`,
			wantErr:      &llm.Error{Kind: llm.ErrNotFound, StatusCode: 404, Message: "model 'llama9' not found"},
			wantRequests: 1,
		},
		{
			name:         "503 exhausts retries",
			status:       503,
			body:         `{"detail":"Server Overloaded"}`,
			wantErr:      &llm.Error{Kind: llm.ErrServer, StatusCode: 503, Message: "Server Overloaded (gave up after 5 attempts)", Retryable: true},
			wantRequests: 5,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newFakeAPI(t, errorBody(tt.status, tt.headers, tt.body))
			p, _ := newTestProvider(t, api, Config{})
			_, err := p.Stream(context.Background(), userRequest("hi"), nil)
			var apiErr *llm.Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("err = %v, want *llm.Error", err)
			}
			if diff := cmp.Diff(tt.wantErr, apiErr, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Err" }, cmp.Ignore())); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if n := len(api.received()); n != tt.wantRequests {
				t.Errorf("sent %d requests, want %d", n, tt.wantRequests)
			}
		})
	}
}

func TestRetryRateLimitThenSuccess(t *testing.T) {
	api := newFakeAPI(t,
		errorBody(429, map[string]string{"retry-after": "3"}, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`),
		sseBody(chunkEvent(`{"content":"ok"}`, "stop")+done),
	)
	p, sleeper := newTestProvider(t, api, Config{})
	var deltas []llm.Delta
	got, err := p.Stream(context.Background(), userRequest("hi"), func(d llm.Delta) { deltas = append(deltas, d) })
	if err != nil {
		t.Fatal(err)
	}
	if got.Content[0].Text != "ok" {
		t.Errorf("content = %+v", got.Content)
	}
	if diff := cmp.Diff([]time.Duration{3 * time.Second}, sleeper.slept); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
	}
	want := []llm.Delta{
		{Kind: llm.DeltaRetry, Text: "rate limited, retrying in 3s (attempt 1/4)"},
		{Kind: llm.DeltaText, Text: "ok"},
	}
	if diff := cmp.Diff(want, deltas); diff != "" {
		t.Errorf("deltas (-want +got):\n%s", diff)
	}
}

func TestStreamFailures(t *testing.T) {
	partial := chunkEvent(`{"role":"assistant","content":"par"}`, "")
	tests := []struct {
		name    string
		body    string
		wantErr *llm.Error
	}{
		{
			name:    "error chunk after 200",
			body:    partial + data(`{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}`),
			wantErr: &llm.Error{Kind: llm.ErrServer, StatusCode: 200, Message: "The server had an error while processing your request."},
		},
		{
			name:    "rate limit error chunk",
			body:    partial + data(`{"error":{"message":"slow down","code":"rate_limit_exceeded"}}`),
			wantErr: &llm.Error{Kind: llm.ErrRateLimit, StatusCode: 200, Message: "slow down"},
		},
		{
			name:    "ends without finish_reason or [DONE]",
			body:    partial,
			wantErr: &llm.Error{Kind: llm.ErrStream, Message: "stream ended before [DONE]"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newFakeAPI(t, sseBody(tt.body))
			p, _ := newTestProvider(t, api, Config{})
			got, err := p.Stream(context.Background(), userRequest("hi"), nil)
			var apiErr *llm.Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("err = %v, want *llm.Error", err)
			}
			if diff := cmp.Diff(tt.wantErr, apiErr, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Err" }, cmp.Ignore())); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if got == nil || len(got.Content) != 1 || got.Content[0].Text != "par" {
				t.Errorf("partial = %+v, want the text seen", got)
			}
			if n := len(api.received()); n != 1 {
				t.Errorf("sent %d requests, want 1", n)
			}
		})
	}
}

func TestCancelDuringStalledStream(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, chunkEvent(`{"content":"wait"}`, ""))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	p, _ := newTestProvider(t, api, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got, err := p.Stream(ctx, userRequest("hi"), func(d llm.Delta) { cancel() })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if got == nil || got.Content[0].Text != "wait" {
		t.Errorf("partial = %+v", got)
	}
}

func TestCredentials(t *testing.T) {
	tests := []struct {
		name    string
		baseURL string
		key     string
		wantErr bool
	}{
		{name: "remote without key", baseURL: "https://api.deepseek.com/v1", wantErr: true},
		{name: "remote with key", baseURL: "https://api.deepseek.com/v1", key: "k"},
		{name: "localhost without key", baseURL: "http://localhost:11434/v1"},
		{name: "127.0.0.1 without key", baseURL: "http://127.0.0.1:8080/v1"},
		{name: "ipv6 loopback without key", baseURL: "http://[::1]:8080/v1"},
		{name: "LAN host without key", baseURL: "http://192.168.1.5:8000/v1", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(Config{BaseURL: tt.baseURL, Model: "m"}, WithGetenv(func(k string) string {
				if k == DefaultAPIKeyEnv {
					return tt.key
				}
				return ""
			}))
			if err != nil {
				t.Fatal(err)
			}
			err = p.CheckCredentials()
			if tt.wantErr {
				want := &llm.Error{Kind: llm.ErrMissingAPIKey, Message: "set OPENAI_API_KEY to your API key for " + tt.baseURL + " (it is empty or unset)", KeyEnv: "OPENAI_API_KEY"}
				if diff := cmp.Diff(error(want), err); diff != "" {
					t.Errorf("CheckCredentials (-want +got):\n%s", diff)
				}
				if _, err := p.Stream(context.Background(), userRequest("x"), nil); llm.ErrorKindOf(err) != llm.ErrMissingAPIKey {
					t.Errorf("Stream error = %v, want missing key", err)
				}
			} else if err != nil {
				t.Errorf("CheckCredentials = %v, want nil", err)
			}
		})
	}
}

func TestLoopbackWithoutKeySendsNoAuthorization(t *testing.T) {
	api := newFakeAPI(t, sseBody(chunkEvent(`{"content":"x"}`, "stop")+done))
	p, err := New(Config{BaseURL: api.URL, Model: "local"}, WithHTTPClient(api.Client()), WithGetenv(func(string) string { return "" }))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Stream(context.Background(), userRequest("hi"), nil); err != nil {
		t.Fatal(err)
	}
	if h := api.received()[0].Header; h.Get("Authorization") != "" {
		t.Errorf("Authorization sent without a key: %q", h.Get("Authorization"))
	}
}

func TestNewValidates(t *testing.T) {
	for _, cfg := range []Config{
		{BaseURL: "not a url"},
		{MaxTokensField: "max_output"},
		{StreamIdleTimeout: "forever"},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) succeeded, want an error", cfg)
		}
	}
}

func TestLogsNeverContainTheKey(t *testing.T) {
	api := newFakeAPI(t, errorBody(401, nil, `{"error":{"message":"Incorrect API key provided: `+testKey+`","code":"invalid_api_key"}}`))
	var logs bytes.Buffer
	p, _ := newTestProvider(t, api, Config{}, WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	_, err := p.Stream(context.Background(), userRequest("hi"), nil)
	if err == nil || strings.Contains(err.Error(), testKey) {
		t.Errorf("error = %v; want one without the key", err)
	}
	if strings.Contains(logs.String(), "SECRET") {
		t.Errorf("logs leak the key:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "Authorization=[REDACTED]") {
		t.Errorf("logs lack the redacted Authorization header:\n%s", logs.String())
	}
}
