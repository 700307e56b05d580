package replay

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
)

// WireServer is a local server that speaks the Anthropic Messages wire
// (POST /v1/messages, SSE answers) from a fixture's recorded bodies, bound
// to conversations in first-call order exactly as replay binds them. It
// checks nothing but the wire's shape: it stands in for the live API when
// record mode is tested or when a hand-written fixture's requests are
// derived (the harness's -author mode).
type WireServer struct {
	s *state

	mu      sync.Mutex
	apiKeys []string
}

// NewWireServer serves fx.
func NewWireServer(fx *Fixture) *WireServer {
	return &WireServer{s: &state{fx: fx, ledger: &Ledger{}, logger: slog.New(slog.DiscardHandler), scenario: fx.Name}}
}

// APIKeys returns the x-api-key values received, in order.
func (w *WireServer) APIKeys() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.apiKeys...)
}

// Unused describes the recorded calls nobody asked for ("" when none).
func (w *WireServer) Unused() string {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	out := ""
	for _, c := range w.s.fx.Conversations {
		if used := w.s.ledger.Used(c.Name); used < len(c.Calls) {
			out += fmt.Sprintf("%s: %d of %d calls used; ", c.Name, used, len(c.Calls))
		}
	}
	return out
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
	obj, err := decodeObject(body)
	if err != nil {
		wireError(rw, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	s := w.s
	s.mu.Lock()
	idx, err := s.bind(obj)
	var sse []byte
	if err == nil {
		c := &s.ledger.Conversations[idx]
		calls := s.fx.Conversations[idx].Calls
		if c.Used >= len(calls) {
			err = fmt.Errorf("conversation %s has no call %d", c.Name, c.Used+1)
		} else {
			c.Used++
			sse = calls[c.Used-1].Response
		}
	}
	s.mu.Unlock()
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
