package loop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/acp/acptest"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/hooks/builtin"
	"github.com/cordis-agent/cordis/llm/anthropic"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/sessionlog"
)

// modelServer is an httptest server speaking the Anthropic Messages SSE
// wire. Each request is answered by the next scripted handler; the decoded
// request bodies are kept for assertions.
type modelServer struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	script   []http.HandlerFunc
	requests []map[string]any
}

func newModelServer(t *testing.T, script ...http.HandlerFunc) *modelServer {
	m := &modelServer{t: t, script: script}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *modelServer) serve(w http.ResponseWriter, r *http.Request) {
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

func (m *modelServer) Requests() []map[string]any {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]map[string]any(nil), m.requests...)
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

// streamBlocks answers with a message made of the given blocks. Each block
// is {"type":"text","text":...} or {"type":"tool_use","id","name","input"}.
func streamBlocks(stop string, blocks ...map[string]any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		sseEvent(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
			"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test", "content": []any{},
			"usage": map[string]any{"input_tokens": 100, "output_tokens": 1}}})
		for i, b := range blocks {
			switch b["type"] {
			case "text":
				sseEvent(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
				text := b["text"].(string)
				for _, part := range splitN(text, 3) {
					sseEvent(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": part}})
				}
			case "tool_use":
				sseEvent(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
				input, _ := json.Marshal(b["input"])
				for _, part := range splitN(string(input), 2) {
					sseEvent(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
				}
			}
			sseEvent(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
		}
		sseEvent(w, "message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop}, "usage": map[string]any{"output_tokens": 20}})
		sseEvent(w, "message_stop", map[string]any{"type": "message_stop"})
	}
}

func splitN(s string, n int) []string {
	if len(s) < n {
		return []string{s}
	}
	var out []string
	size := (len(s) + n - 1) / n
	for len(s) > size {
		out = append(out, s[:size])
		s = s[size:]
	}
	return append(out, s)
}

func textBlock(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

func toolUse(id, name string, input map[string]any) map[string]any {
	return map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}
}

func replyText(s string) http.HandlerFunc { return streamBlocks("end_turn", textBlock(s)) }

// hookFunc adapts a function to hooks.Seams.
type hookFunc func(ctx context.Context, in *hooks.Input) hooks.Decision

func (f hookFunc) Run(ctx context.Context, in *hooks.Input) hooks.Decision { return f(ctx, in) }

type harness struct {
	t      *testing.T
	model  *modelServer
	editor *acptest.Editor
	ctx    context.Context
	cwd    string
	state  string
	init   *acp.InitializeResponse
}

type harnessOpts struct {
	hooks hooks.Seams
	mode  string
	caps  acp.ClientCapabilities
	cfg   func(*loop.Config)
	prov  []anthropic.Option
}

func newHarness(t *testing.T, o harnessOpts, script ...http.HandlerFunc) *harness {
	t.Helper()
	ms := newModelServer(t, script...)
	popts := append([]anthropic.Option{
		anthropic.WithGetenv(func(k string) string {
			if k == "ANTHROPIC_API_KEY" {
				return "test-key"
			}
			return ""
		}),
		anthropic.WithSleep(func(ctx context.Context, d time.Duration) error { return ctx.Err() }),
	}, o.prov...)
	prov, err := anthropic.New(anthropic.Config{BaseURL: ms.srv.URL, Model: "claude-test", MaxRetries: 2}, popts...)
	if err != nil {
		t.Fatal(err)
	}
	cfg := loop.Config{Provider: prov, Model: "claude-test", StateDir: t.TempDir(), Hooks: o.hooks, DefaultMode: o.mode}
	if o.cfg != nil {
		o.cfg(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	h := &harness{t: t, model: ms, ctx: ctx, cwd: t.TempDir(), state: cfg.StateDir}
	h.editor = acptest.Start(t, loop.New(cfg))
	h.init = h.editor.Initialize(ctx, o.caps)
	return h
}

func (h *harness) newSession() string {
	return h.editor.NewSession(h.ctx, h.cwd).SessionID
}

func (h *harness) prompt(sid, text string) acp.StopReason {
	h.t.Helper()
	stop, err := h.editor.Prompt(h.ctx, sid, text)
	if err != nil {
		h.t.Fatalf("prompt: %v", err)
	}
	return stop
}

// agentText joins the agent_message_chunk text of a session.
func agentText(updates []acp.SessionUpdate) string {
	var b strings.Builder
	for _, u := range updates {
		if c, ok := u.(*acp.AgentMessageChunk); ok {
			b.WriteString(c.Content.Text)
		}
	}
	return b.String()
}

func toolUpdates(updates []acp.SessionUpdate, id string) []*acp.ToolCallUpdate {
	var out []*acp.ToolCallUpdate
	for _, u := range updates {
		if c, ok := u.(*acp.ToolCallUpdate); ok && c.ToolCallID == id {
			out = append(out, c)
		}
	}
	return out
}

// lastToolResult finds the tool_result for id in a recorded request.
func toolResultIn(t *testing.T, req map[string]any, id string) (text string, isError bool) {
	t.Helper()
	msgs, _ := req["messages"].([]any)
	for _, m := range msgs {
		content, _ := m.(map[string]any)["content"].([]any)
		for _, c := range content {
			b := c.(map[string]any)
			if b["type"] == "tool_result" && b["tool_use_id"] == id {
				isErr, _ := b["is_error"].(bool)
				switch v := b["content"].(type) {
				case string:
					return v, isErr
				case []any:
					var sb strings.Builder
					for _, x := range v {
						sb.WriteString(x.(map[string]any)["text"].(string))
					}
					return sb.String(), isErr
				}
			}
		}
	}
	t.Fatalf("no tool_result for %s in request", id)
	return "", false
}

func allow(option string) func(context.Context, *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	return func(context.Context, *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: option}}, nil
	}
}

// waitFor polls cond (for durable events such as a request having arrived).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached within 20s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// withBuiltins returns a hook pipeline holding the built-in hooks of cfg
// (nil: the defaults cordis runs without a hooks/builtin entry).
func withBuiltins(t *testing.T, cfg *builtin.Config) (*hooks.Pipeline, *builtin.Set) {
	t.Helper()
	if cfg == nil {
		cfg = builtin.DefaultConfig()
	}
	p := hooks.NewPipeline()
	set, err := builtin.Register(p, cfg, builtin.Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	return p, set
}

// logEvents reads a session's log (or, with agentID, a subagent's).
func logEvents(t *testing.T, state, sid, agentID string) []sessionlog.Event {
	t.Helper()
	path := sessionlog.Path(state, sid)
	if agentID != "" {
		path = sessionlog.SubagentPath(state, sid, agentID)
	}
	events, _, err := sessionlog.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return events
}

// logData decodes the data of the events of one type, in log order.
func logData(events []sessionlog.Event, typ string) []map[string]any {
	var out []map[string]any
	for _, ev := range events {
		if ev.Type == typ {
			var m map[string]any
			json.Unmarshal(ev.Data, &m)
			out = append(out, m)
		}
	}
	return out
}

// hookResults returns the hook/result decisions of one hook, in order.
func hookResults(events []sessionlog.Event, hook string) []map[string]any {
	var out []map[string]any
	for _, d := range logData(events, sessionlog.TypeHookResult) {
		if d["hook"] == hook {
			dec, _ := d["decision"].(map[string]any)
			out = append(out, dec)
		}
	}
	return out
}

// streamBlocksAs is streamBlocks with the response's model and input
// tokens chosen (output tokens stay 20).
func streamBlocksAs(model string, inputTokens int, stop string, blocks ...map[string]any) http.HandlerFunc {
	inner := streamBlocks(stop, blocks...)
	return func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		inner(rec, r)
		body := rec.Body.String()
		body = strings.Replace(body, `"model":"claude-test"`, fmt.Sprintf("%q:%q", "model", model), 1)
		body = strings.Replace(body, `"input_tokens":100`, fmt.Sprintf(`"input_tokens":%d`, inputTokens), 1)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
	}
}
