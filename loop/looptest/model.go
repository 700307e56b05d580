package looptest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// ModelServer is an httptest server speaking the Anthropic Messages SSE
// wire. Each request is answered by the next scripted handler; the decoded
// request bodies are kept for assertions.
type ModelServer struct {
	t   testing.TB
	srv *httptest.Server

	mu       sync.Mutex
	script   []http.HandlerFunc
	requests []map[string]any
}

// NewModelServer starts a server that answers with script, one handler
// per request, and fails t on a request past the end of the script. It
// is closed when the test ends.
func NewModelServer(t testing.TB, script ...http.HandlerFunc) *ModelServer {
	m := &ModelServer{t: t, script: script}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *ModelServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		m.t.Errorf("model server: bad request body: %v", err)
	}
	m.mu.Lock()
	m.requests = append(m.requests, req)
	if len(m.script) == 0 {
		m.mu.Unlock()
		m.t.Errorf("model server: unexpected extra request %d", len(m.requests))
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"no more scripted responses"}}`, 400)
		return
	}
	h := m.script[0]
	m.script = m.script[1:]
	m.mu.Unlock()
	h(w, r)
}

// Append adds answers to the end of the script, for answers that need
// what only exists once the harness does (a file in its Cwd).
func (m *ModelServer) Append(script ...http.HandlerFunc) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.script = append(m.script, script...)
}

// URL is the base URL to give the Anthropic provider.
func (m *ModelServer) URL() string { return m.srv.URL }

// Close stops the server before the test ends, as a model going away.
func (m *ModelServer) Close() { m.srv.Close() }

// Requests returns the decoded request bodies received so far, in order.
func (m *ModelServer) Requests() []map[string]any {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]map[string]any(nil), m.requests...)
}

// CheckAllUsed fails the test if some scripted answers were never
// requested.
func (m *ModelServer) CheckAllUsed() {
	m.t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.script) != 0 {
		m.t.Errorf("model server: %d scripted responses were never requested", len(m.script))
	}
}
