package replaytest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/cordis-agent/cordis/llm/replay"
)

// WireServer is a local server that speaks the Anthropic Messages wire
// (POST /v1/messages, SSE answers) from a fixture's recorded bodies, bound
// to conversations in first-call order exactly as replay binds them
// (replay.ConversationKey). It checks nothing but the wire's shape: it
// stands in for the live API when record mode is tested or when a
// hand-written fixture's requests are derived (the harness's -author
// mode).
type WireServer struct {
	fx *replay.Fixture

	mu      sync.Mutex
	keys    []string // conversation keys, in binding order
	used    []int    // calls served, per bound conversation
	apiKeys []string
}

// NewWireServer serves fx.
func NewWireServer(fx *replay.Fixture) *WireServer { return &WireServer{fx: fx} }

// APIKeys returns the x-api-key values received, in order.
func (w *WireServer) APIKeys() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.apiKeys...)
}

// Unused describes the recorded calls nobody asked for ("" when none).
func (w *WireServer) Unused() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := ""
	for i, c := range w.fx.Conversations {
		used := 0
		if i < len(w.used) {
			used = w.used[i]
		}
		if used < len(c.Calls) {
			out += fmt.Sprintf("%s: %d of %d calls used; ", c.Name, used, len(c.Calls))
		}
	}
	return out
}

// next binds body's conversation (a new one to the next fixture folder)
// and returns the response body of its next call.
func (w *WireServer) next(body []byte) ([]byte, error) {
	key, err := replay.ConversationKey(body)
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	idx := -1
	for i, k := range w.keys {
		if k == key {
			idx = i
		}
	}
	if idx < 0 {
		if len(w.keys) == len(w.fx.Conversations) {
			return nil, fmt.Errorf("the agent started conversation %d, but fixture %s has %d", len(w.keys)+1, w.fx.Name, len(w.fx.Conversations))
		}
		w.keys, w.used = append(w.keys, key), append(w.used, 0)
		idx = len(w.keys) - 1
	}
	calls := w.fx.Conversations[idx].Calls
	if w.used[idx] >= len(calls) {
		return nil, fmt.Errorf("conversation %s has no call %d", w.fx.Conversations[idx].Name, w.used[idx]+1)
	}
	w.used[idx]++
	return calls[w.used[idx]-1].Response, nil
}

func wireError(rw http.ResponseWriter, status int, typ, msg string) {
	rw.Header().Set("Content-Type", "application/json")
	rw.WriteHeader(status)
	json.NewEncoder(rw).Encode(map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": msg}})
}

// ServeHTTP implements http.Handler.
func (w *WireServer) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		wireError(rw, http.StatusNotFound, "not_found_error", "no such endpoint: "+r.Method+" "+r.URL.Path)
		return
	}
	key := r.Header.Get("X-Api-Key")
	w.mu.Lock()
	w.apiKeys = append(w.apiKeys, key)
	w.mu.Unlock()
	if key == "" {
		wireError(rw, http.StatusUnauthorized, "authentication_error", "x-api-key header is required")
		return
	}
	if r.Header.Get("Anthropic-Version") == "" {
		wireError(rw, http.StatusBadRequest, "invalid_request_error", "anthropic-version header is required")
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		wireError(rw, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	sse, err := w.next(body)
	if err != nil {
		wireError(rw, http.StatusBadRequest, "invalid_request_error", "wire server: "+err.Error())
		return
	}
	rw.Header().Set("Content-Type", "text/event-stream")
	rw.Header().Set("Cache-Control", "no-cache")
	rw.WriteHeader(http.StatusOK)
	rw.Write(sse)
	if f, ok := rw.(http.Flusher); ok {
		f.Flush()
	}
}
