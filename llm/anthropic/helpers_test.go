package anthropic

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/llm"
)

const testKey = "sk-ant-test-SECRET-0123456789"

// event formats one SSE frame.
func event(name, data string) string {
	return "event: " + name + "\ndata: " + data + "\n\n"
}

// textStream is a complete stream answering with the given text chunks.
func textStream(model string, chunks ...string) string {
	var b strings.Builder
	b.WriteString(event("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"`+model+`","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}`))
	b.WriteString(event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`))
	for _, c := range chunks {
		b.WriteString(event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%q}}`, c)))
	}
	b.WriteString(event("content_block_stop", `{"type":"content_block_stop","index":0}`))
	b.WriteString(event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":5}}`))
	b.WriteString(event("message_stop", `{"type":"message_stop"       }`))
	return b.String()
}

// recorded is one request the fake API received.
type recorded struct {
	Path   string
	Header http.Header
	Body   string
}

// fakeAPI is an httptest server whose responses are scripted in order; the
// last script repeats.
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
		r.Body = io.NopCloser(bytes.NewReader(body)) // scripts may read it again
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

// sseBody answers 200 with a complete SSE body.
func sseBody(body string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
	}
}

// errorBody answers with an API error.
func errorBody(status int, headers map[string]string, body string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		for k, v := range headers {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// stallAfter writes prefix, flushes, and then holds the connection open
// until the client goes away or the test ends.
func stallAfter(t *testing.T, prefix string) func(http.ResponseWriter, *http.Request) {
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, prefix)
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}
}

// dropAfter writes prefix and then cuts the TCP connection mid-body.
func dropAfter(prefix string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, prefix)
		w.(http.Flusher).Flush()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}
}

// dropBeforeResponse cuts the connection without answering.
func dropBeforeResponse(w http.ResponseWriter, r *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}

type sleepRecorder struct {
	mu    sync.Mutex
	slept []time.Duration
}

func (s *sleepRecorder) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.slept = append(s.slept, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleepRecorder) durations() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.slept...)
}

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// newTestProvider returns a provider talking to api with a test key and a
// recording sleeper.
func newTestProvider(t *testing.T, api *fakeAPI, cfg Config, opts ...Option) (*Provider, *sleepRecorder) {
	t.Helper()
	sleeper := &sleepRecorder{}
	if cfg.Model == "" {
		cfg.Model = "claude-test"
	}
	cfg.BaseURL = api.URL
	all := append([]Option{
		WithHTTPClient(api.Client()),
		WithGetenv(env(map[string]string{DefaultAPIKeyEnv: testKey})),
		WithSleep(sleeper.sleep),
	}, opts...)
	p, err := New(cfg, all...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	p.policy.Jitter = func() float64 { return 0 }
	return p, sleeper
}

// collect returns a sink that records deltas.
func collect() (*[]llm.Delta, func(llm.Delta)) {
	var deltas []llm.Delta
	return &deltas, func(d llm.Delta) { deltas = append(deltas, d) }
}

func userRequest(text string) *llm.Request {
	return &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{llm.Text(text)}}}}
}
