package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/acp/acptest"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/llm/anthropic"
	"github.com/cordis-agent/cordis/loop"
)

// modelServer speaks the Anthropic Messages SSE wire: each request is
// answered by the next scripted handler.
type modelServer struct {
	t   *testing.T
	srv *httptest.Server

	mu     sync.Mutex
	script []http.HandlerFunc
}

func newModelServer(t *testing.T, script ...http.HandlerFunc) *modelServer {
	m := &modelServer{t: t, script: script}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *modelServer) serve(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	m.mu.Lock()
	if len(m.script) == 0 {
		m.mu.Unlock()
		m.t.Errorf("model server: unexpected extra request")
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"no more scripted responses"}}`, 400)
		return
	}
	h := m.script[0]
	m.script = m.script[1:]
	m.mu.Unlock()
	h(w, r)
}

func (m *modelServer) checkAllUsed() {
	m.t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.script) != 0 {
		m.t.Errorf("model server: %d scripted responses were never requested", len(m.script))
	}
}

func sseEvent(w io.Writer, name string, data any) {
	b, _ := json.Marshal(data)
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
}

// streamBlocks answers with a message made of blocks: text, thinking or
// tool_use; inputTokens varies the usage so that totals are checked.
func streamBlocks(inputTokens int, stop string, blocks ...map[string]any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		sseEvent(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
			"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test", "content": []any{},
			"usage": map[string]any{"input_tokens": inputTokens, "output_tokens": 1, "cache_read_input_tokens": 7}}})
		for i, b := range blocks {
			delta := func(d map[string]any) {
				sseEvent(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d})
			}
			switch b["type"] {
			case "text":
				sseEvent(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
				delta(map[string]any{"type": "text_delta", "text": b["text"]})
			case "thinking":
				sseEvent(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "thinking", "thinking": ""}})
				delta(map[string]any{"type": "thinking_delta", "thinking": b["thinking"]})
				delta(map[string]any{"type": "signature_delta", "signature": "sig-1"})
			case "tool_use":
				sseEvent(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
				input, _ := json.Marshal(b["input"])
				delta(map[string]any{"type": "input_json_delta", "partial_json": string(input)})
			}
			sseEvent(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
		}
		sseEvent(w, "message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop}, "usage": map[string]any{"output_tokens": 20}})
		sseEvent(w, "message_stop", map[string]any{"type": "message_stop"})
	}
}

func text(s string) map[string]any     { return map[string]any{"type": "text", "text": s} }
func thinking(s string) map[string]any { return map[string]any{"type": "thinking", "thinking": s} }
func toolUse(id, name string, input map[string]any) map[string]any {
	return map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}
}

// harness is an agent behind a scripted editor, with a fixed clock.
type harness struct {
	t      *testing.T
	model  *modelServer
	editor *acptest.Editor
	ctx    context.Context
	cwd    string
	state  string
}

// fixedNow is the harness's clock: every timestamp is this instant.
var fixedNow = time.Date(2025, 1, 2, 3, 4, 5, 123456789, time.UTC)

func newHarness(t *testing.T, seams hooks.Seams, mode string, script ...http.HandlerFunc) *harness {
	t.Helper()
	ms := newModelServer(t, script...)
	prov, err := anthropic.New(anthropic.Config{BaseURL: ms.srv.URL, Model: "claude-test", MaxRetries: 1},
		anthropic.WithGetenv(func(k string) string {
			if k == "ANTHROPIC_API_KEY" {
				return "test-key"
			}
			return ""
		}))
	if err != nil {
		t.Fatal(err)
	}
	cfg := loop.Config{
		Provider: prov, Model: "claude-test", StateDir: t.TempDir(), Hooks: seams, DefaultMode: mode,
		ContextWindow: 200000, Version: version, Now: func() time.Time { return fixedNow },
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	h := &harness{t: t, model: ms, ctx: ctx, cwd: t.TempDir(), state: cfg.StateDir}
	h.editor = acptest.Start(t, loop.New(cfg))
	h.editor.Initialize(ctx, acp.ClientCapabilities{})
	return h
}

func (h *harness) newSession() string { return h.editor.NewSession(h.ctx, h.cwd).SessionID }

func (h *harness) prompt(sid, text string) acp.StopReason {
	h.t.Helper()
	stop, err := h.editor.Prompt(h.ctx, sid, text)
	if err != nil {
		h.t.Fatalf("prompt: %v", err)
	}
	return stop
}

func (h *harness) call(method string, params any) {
	h.t.Helper()
	if err := h.editor.Call(h.ctx, method, params, &json.RawMessage{}); err != nil {
		h.t.Fatalf("%s: %v", method, err)
	}
}
