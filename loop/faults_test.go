package loop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/llm/anthropic"
	"github.com/cordis-agent/cordis/loop/looptest"
	"github.com/cordis-agent/cordis/sessionlog"
)

// The fault-injecting model server: each case scripts the Anthropic SSE
// wire to fail in one way, runs a turn through the real agent and checks
// that the turn ends (never hangs) with a clear message, that the session
// log reads back with the turn closed, and that the history is valid for
// the next prompt, which must succeed.

// faultHarness is a looptest.Harness with the provider's config chosen by
// the test; the waits between retries are recorded instead of slept.
type faultHarness struct {
	*looptest.Harness
	mu     sync.Mutex
	sleeps []time.Duration
}

func newFaultHarness(t *testing.T, pcfg anthropic.Config, mode string, script ...http.HandlerFunc) *faultHarness {
	t.Helper()
	fh := &faultHarness{}
	recordSleep := anthropic.WithSleep(func(ctx context.Context, d time.Duration) error {
		fh.mu.Lock()
		fh.sleeps = append(fh.sleeps, d)
		fh.mu.Unlock()
		return ctx.Err()
	})
	fh.Harness = looptest.NewHarness(t, looptest.Options{Mode: mode, Anthropic: pcfg, AnthropicOptions: []anthropic.Option{recordSleep}}, script...)
	return fh
}

func (fh *faultHarness) Sleeps() []time.Duration {
	fh.mu.Lock()
	defer fh.mu.Unlock()
	return append([]time.Duration(nil), fh.sleeps...)
}

// promptWithin runs a prompt and fails the test if it does not end within
// d: the editor must never hang.
func promptWithin(t *testing.T, h *looptest.Harness, sid, text string, d time.Duration) acp.StopReason {
	t.Helper()
	ctx, cancel := context.WithTimeout(h.Ctx, d)
	defer cancel()
	stop, err := h.Editor.Prompt(ctx, sid, text)
	if err != nil {
		t.Fatalf("prompt %q: %v (within %s)", text, err, d)
	}
	return stop
}

// promptFailing runs a prompt that may fail and fails the test if it does
// not end within d.
func promptFailing(t *testing.T, h *looptest.Harness, sid, text string, d time.Duration) (acp.StopReason, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(h.Ctx, d)
	defer cancel()
	stop, err := h.Editor.Prompt(ctx, sid, text)
	if ctx.Err() != nil {
		t.Fatalf("prompt %q did not end within %s", text, d)
	}
	return stop, err
}

// messageStart, textStart and textDelta are SSE events of a partial answer.
func messageStart(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	looptest.SSEEvent(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_f", "type": "message", "role": "assistant", "model": "claude-test", "content": []any{},
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 1}}})
}

func partialText(w http.ResponseWriter, text string) {
	messageStart(w)
	looptest.SSEEvent(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
	looptest.SSEEvent(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": text}})
	w.(http.Flusher).Flush()
}

// stallAfter sends a partial answer, then nothing until the client goes.
func stallAfter(text string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		partialText(w, text)
		<-r.Context().Done()
	}
}

// stallBeforeHeaders sends nothing at all until the client goes.
func stallBeforeHeaders(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }

// resetConn drops the TCP connection with a RST, after a partial answer
// when text is not empty.
func resetConn(text string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if text != "" {
			partialText(w, text)
		}
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			panic(err)
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.SetLinger(0)
		}
		conn.Close()
	}
}

func malformedChunk(w http.ResponseWriter, r *http.Request) {
	partialText(w, "Half an ans")
	fmt.Fprint(w, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"wer\"\n\n")
	looptest.SSEEvent(w, "message_stop", map[string]any{"type": "message_stop"})
}

func errorEventAfter200(w http.ResponseWriter, r *http.Request) {
	partialText(w, "Partial answer")
	looptest.SSEEvent(w, "error", map[string]any{"type": "error", "error": map[string]any{"type": "api_error", "message": "Internal server error"}})
}

func httpError(status int, header map[string]string, errType, msg string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"type":"error","error":{"type":%q,"message":%q}}`, errType, msg)
	}
}

func times(n int, h http.HandlerFunc) []http.HandlerFunc {
	out := make([]http.HandlerFunc, n)
	for i := range out {
		out[i] = h
	}
	return out
}

func TestModelFaults(t *testing.T) {
	overloaded := httpError(529, nil, "overloaded_error", "Overloaded")
	tests := []struct {
		name   string
		pcfg   anthropic.Config
		script []http.HandlerFunc // the faulty turn; "recovered" is appended
		// want is in the JSON-RPC error that answers the prompt (or "" for
		// a turn that recovered by retrying); kind in the model/error log
		// event and the error's data.
		want, kind string
		stop       acp.StopReason
		requests   int // model requests of the faulty turn
		check      func(t *testing.T, fh *faultHarness, reqs []map[string]any)
	}{
		{name: "stall mid-stream ends at the idle timeout",
			pcfg:   anthropic.Config{StreamIdleTimeout: "300ms"},
			script: []http.HandlerFunc{stallAfter("Let me think")},
			want:   "no data from the API for 300ms; stream aborted", kind: "timeout", stop: acp.StopEndTurn, requests: 1},
		{name: "stall before the headers is retried, then gives up",
			pcfg:   anthropic.Config{StreamIdleTimeout: "200ms"},
			script: times(3, stallBeforeHeaders),
			want:   "nothing received for 200ms (gave up after 3 attempts)", kind: "timeout", stop: acp.StopEndTurn, requests: 3},
		{name: "connection reset before the answer is retried",
			script: []http.HandlerFunc{resetConn(""), looptest.ReplyText("Answer after a reset.")},
			stop:   acp.StopEndTurn, requests: 2},
		{name: "connection reset on every attempt",
			script: times(3, resetConn("")),
			want:   "gave up after 3 attempts", kind: "transport", stop: acp.StopEndTurn, requests: 3},
		{name: "connection reset mid-stream is not retried",
			script: []http.HandlerFunc{resetConn("Half of it")},
			want:   "The model's response broke off mid-stream", kind: "stream", stop: acp.StopEndTurn, requests: 1},
		{name: "malformed chunk",
			script: []http.HandlerFunc{malformedChunk},
			want:   "The model's response broke off mid-stream", kind: "stream", stop: acp.StopEndTurn, requests: 1},
		{name: "error event after HTTP 200",
			script: []http.HandlerFunc{errorEventAfter200},
			want:   "Internal server error", kind: "server", stop: acp.StopEndTurn, requests: 1},
		{name: "429 with retry-after is honoured",
			script: []http.HandlerFunc{httpError(429, map[string]string{"retry-after": "3"}, "rate_limit_error", "Slow down"), looptest.ReplyText("Answer after waiting.")},
			stop:   acp.StopEndTurn, requests: 2,
			check: func(t *testing.T, fh *faultHarness, _ []map[string]any) {
				if s := fh.Sleeps(); len(s) != 1 || s[0] != 3*time.Second {
					t.Errorf("waits between attempts = %v, want [3s] from retry-after", s)
				}
			}},
		{name: "429 storm",
			script: times(3, httpError(429, map[string]string{"retry-after-ms": "1500"}, "rate_limit_error", "Slow down")),
			want:   "rate limit was hit and retries did not help", kind: "rate_limit", stop: acp.StopEndTurn, requests: 3,
			check: func(t *testing.T, fh *faultHarness, _ []map[string]any) {
				if s := fh.Sleeps(); len(s) != 2 || s[0] != 1500*time.Millisecond || s[1] != 1500*time.Millisecond {
					t.Errorf("waits between attempts = %v, want 2 x 1.5s from retry-after-ms", s)
				}
			}},
		{name: "500 is retried",
			script: []http.HandlerFunc{httpError(500, nil, "api_error", "boom"), looptest.ReplyText("Answer after a 500.")},
			stop:   acp.StopEndTurn, requests: 2},
		{name: "500 on every attempt",
			script: times(3, httpError(500, nil, "api_error", "boom")),
			want:   "boom (gave up after 3 attempts)", kind: "server", stop: acp.StopEndTurn, requests: 3},
		{name: "529 storm without a fallback model",
			script: times(3, overloaded),
			want:   "overloaded and retries did not help", kind: "overloaded", stop: acp.StopEndTurn, requests: 3},
		{name: "529 storm switches to the fallback model",
			pcfg:   anthropic.Config{MaxRetries: 4, FallbackModel: "claude-fallback", FallbackAfter: 3},
			script: append(times(3, overloaded), looptest.ReplyText("Answer from the fallback.")),
			stop:   acp.StopEndTurn, requests: 4,
			check: func(t *testing.T, fh *faultHarness, reqs []map[string]any) {
				var models []string
				for _, r := range reqs {
					models = append(models, fmt.Sprint(r["model"]))
				}
				want := "claude-test claude-test claude-test claude-fallback claude-fallback"
				if got := strings.Join(models, " "); got != want {
					t.Errorf("models requested = %s, want %s (the breaker stays open for the next turn)", got, want)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			script := append(append([]http.HandlerFunc(nil), tt.script...), looptest.ReplyText("recovered"))
			fh := newFaultHarness(t, tt.pcfg, "", script...)
			sid := fh.NewSession()
			start := time.Now()
			stop, err := promptFailing(t, fh.Harness, sid, "do something", 20*time.Second)
			t.Logf("the faulty turn ended in %s: %v", time.Since(start).Round(time.Millisecond), err)
			switch {
			case tt.want == "" && (err != nil || stop != tt.stop):
				t.Fatalf("stop = %q, %v; want %q", stop, err, tt.stop)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "-32603")):
				t.Fatalf("the prompt was answered %q, %v; want a JSON-RPC error -32603 containing %q", stop, err, tt.want)
			}
			if text := looptest.AgentText(fh.Editor.Updates(sid)); tt.want != "" && strings.Contains(text, tt.want) {
				t.Errorf("the failure was shown as the model's text: %q", text)
			}
			if n := len(fh.Model.Requests()); n != tt.requests {
				t.Errorf("%d model requests in the faulty turn, want %d", n, tt.requests)
			}
			events := checkLog(t, fh.StateDir, sid, 1)
			errs := logData(events, sessionlog.TypeModelError)
			switch {
			case tt.kind == "" && len(errs) > 0:
				t.Errorf("model/error logged for a turn that recovered: %v", errs)
			case tt.kind != "" && (len(errs) != 1 || errs[0]["kind"] != tt.kind):
				t.Errorf("model/error events = %v, want one of kind %q", errs, tt.kind)
			}

			// The conversation goes on.
			if stop := promptWithin(t, fh.Harness, sid, "and now?", 20*time.Second); stop != acp.StopEndTurn {
				t.Fatalf("the next prompt ended %q", stop)
			}
			reqs := fh.Model.Requests()
			checkHistory(t, reqs[len(reqs)-1])
			checkLog(t, fh.StateDir, sid, 2)
			fh.Model.CheckAllUsed()
			if tt.check != nil {
				tt.check(t, fh, reqs)
			}
		})
	}
}

// A stalled stream is cancellable: session/cancel ends the turn
// `cancelled` at once, the partial answer stays in the history, and the
// session goes on.
func TestModelStallIsCancellable(t *testing.T) {
	fh := newFaultHarness(t, anthropic.Config{}, "", stallAfter("Thinking about it"), looptest.ReplyText("recovered"))
	sid := fh.NewSession()
	done := make(chan acp.StopReason, 1)
	go func() { done <- promptWithin(t, fh.Harness, sid, "go", 20*time.Second) }()
	waitFor(t, func() bool { return strings.Contains(looptest.AgentText(fh.Editor.Updates(sid)), "Thinking about it") })
	fh.Editor.Notify(fh.Ctx, acp.MethodSessionCancel, acp.CancelNotification{SessionID: sid})
	select {
	case stop := <-done:
		if stop != acp.StopCancelled {
			t.Fatalf("stop = %q, want cancelled", stop)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the turn did not end within 5s of session/cancel")
	}
	events := checkLog(t, fh.StateDir, sid, 1)
	if ends := logData(events, sessionlog.TypeTurnEnd); ends[0]["stopReason"] != string(acp.StopCancelled) {
		t.Errorf("turn/end = %v", ends)
	}
	if stop := promptWithin(t, fh.Harness, sid, "again", 20*time.Second); stop != acp.StopEndTurn {
		t.Fatalf("the next prompt ended %q", stop)
	}
	reqs := fh.Model.Requests()
	checkHistory(t, reqs[len(reqs)-1])
	checkLog(t, fh.StateDir, sid, 2)
}

// checkLog reads a session log back: it must parse without warnings and
// hold exactly turns turn/start and turn/end events, each start closed.
func checkLog(t *testing.T, state, sid string, turns int) []sessionlog.Event {
	t.Helper()
	events, warnings, err := sessionlog.Read(sessionlog.Path(state, sid))
	if err != nil {
		t.Fatalf("session log: %v", err)
	}
	if len(warnings) > 0 {
		t.Errorf("session log warnings: %v", warnings)
	}
	starts, ends := 0, 0
	for _, ev := range events {
		switch ev.Type {
		case sessionlog.TypeTurnStart:
			if starts != ends {
				t.Errorf("turn/start before the previous turn ended (seq %d)", ev.Seq)
			}
			starts++
		case sessionlog.TypeTurnEnd:
			ends++
		}
	}
	if starts != turns || ends != turns {
		t.Errorf("session log has %d turn/start and %d turn/end, want %d of each", starts, ends, turns)
	}
	return events
}

// checkHistory validates the messages of a request the agent sent: they
// start with the user, alternate, have no empty content, and every
// tool_use is answered by a tool_result in the next message.
func checkHistory(t *testing.T, req map[string]any) {
	t.Helper()
	msgs, _ := req["messages"].([]any)
	if len(msgs) == 0 {
		t.Fatal("request without messages")
	}
	prevRole := ""
	var pendingTools []string
	for i, m := range msgs {
		msg := m.(map[string]any)
		role, _ := msg["role"].(string)
		if i == 0 && role != "user" {
			t.Errorf("messages[0] is %s, want user", role)
		}
		if role == prevRole {
			t.Errorf("messages[%d]: two %s messages in a row", i, role)
		}
		prevRole = role
		content, _ := msg["content"].([]any)
		if len(content) == 0 {
			if s, ok := msg["content"].(string); !ok || s == "" {
				t.Errorf("messages[%d] (%s) has no content", i, role)
			}
		}
		results := map[string]bool{}
		var uses []string
		for _, c := range content {
			b := c.(map[string]any)
			switch b["type"] {
			case "tool_use":
				uses = append(uses, fmt.Sprint(b["id"]))
			case "tool_result":
				results[fmt.Sprint(b["tool_use_id"])] = true
			case "text":
				if b["text"] == "" {
					t.Errorf("messages[%d] has an empty text block", i)
				}
			}
		}
		for _, id := range pendingTools {
			if !results[id] {
				t.Errorf("messages[%d]: no tool_result for %s", i, id)
			}
		}
		pendingTools = uses
	}
	if len(pendingTools) > 0 {
		t.Errorf("the last message has unanswered tool_use %v", pendingTools)
	}
	if prevRole != "user" {
		t.Errorf("the last message is %s, want user", prevRole)
	}
	if b, _ := json.Marshal(req["messages"]); t.Failed() {
		t.Logf("messages: %s", b)
	}
}
