package loop_test

import (
	"bufio"
	"bytes"
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
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/hooks/builtin"
	"github.com/cordis-agent/cordis/llm/anthropic"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
)

// benchEditor is the cheapest possible ACP client for benchmarks: it
// writes requests as raw lines and counts session/update lines without
// decoding them, so the measurement is the agent's work.
type benchEditor struct {
	w       io.WriteCloser
	nextID  int
	wmu     sync.Mutex // serializes writes; never held while waiting on mu
	mu      sync.Mutex
	waiting map[int]chan json.RawMessage
	updates int
	bytes   int
	done    chan struct{}
	// onRequest answers the agent's reverse calls (nil refuses them).
	onRequest func(method string, params json.RawMessage) any
}

// startBench serves cfg in-process over pipes, as cordis serves stdio.
func startBench(tb testing.TB, cfg loop.Config) *benchEditor {
	tb.Helper()
	agentIn, editorOut := io.Pipe()
	editorIn, agentOut := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		acp.Serve(ctx, agentIn, agentOut, loop.New(cfg), acp.Options{})
		agentOut.Close()
		close(served)
	}()
	e := &benchEditor{w: editorOut, waiting: map[int]chan json.RawMessage{}, done: make(chan struct{})}
	go e.read(editorIn)
	tb.Cleanup(func() {
		editorOut.Close()
		select {
		case <-served:
		case <-time.After(10 * time.Second):
			tb.Error("agent did not stop")
		}
		cancel()
	})
	return e
}

func (e *benchEditor) read(r io.Reader) {
	defer close(e.done)
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			e.handle(line)
		}
		if err != nil {
			return
		}
	}
}

func (e *benchEditor) handle(line []byte) {
	head := line[:min(len(line), 96)]
	if bytes.Contains(head, []byte(`"method":"session/update"`)) && !bytes.Contains(head, []byte(`"id"`)) {
		e.mu.Lock()
		e.updates++
		e.bytes += len(line)
		e.mu.Unlock()
		return
	}
	var f struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(line, &f) != nil {
		return
	}
	if f.Method != "" {
		go func() {
			var result any
			if e.onRequest != nil {
				result = e.onRequest(f.Method, f.Params)
			}
			msg := map[string]any{"jsonrpc": "2.0", "id": f.ID, "result": result}
			if result == nil {
				delete(msg, "result")
				msg["error"] = map[string]any{"code": -32601, "message": "not offered"}
			}
			data, _ := json.Marshal(msg)
			e.wmu.Lock()
			e.w.Write(append(data, '\n'))
			e.wmu.Unlock()
		}()
		return
	}
	var id int
	json.Unmarshal(f.ID, &id)
	e.mu.Lock()
	ch := e.waiting[id]
	delete(e.waiting, id)
	e.mu.Unlock()
	if ch != nil {
		if len(f.Error) > 0 {
			ch <- append(json.RawMessage(`{"error":`), append(f.Error, '}')...)
		} else {
			ch <- f.Result
		}
	}
}

func (e *benchEditor) call(tb testing.TB, method string, params any) json.RawMessage {
	tb.Helper()
	e.mu.Lock()
	e.nextID++
	id := e.nextID
	ch := make(chan json.RawMessage, 1)
	e.waiting[id] = ch
	e.mu.Unlock()
	data, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	e.wmu.Lock()
	_, err := e.w.Write(append(data, '\n'))
	e.wmu.Unlock()
	if err != nil {
		tb.Fatal(err)
	}
	select {
	case res := <-ch:
		if bytes.HasPrefix(res, []byte(`{"error":`)) {
			tb.Fatalf("%s: %s", method, res)
		}
		return res
	case <-e.done:
		tb.Fatalf("%s: the agent went away", method)
	case <-time.After(5 * time.Minute):
		tb.Fatalf("%s: no answer", method)
	}
	return nil
}

func (e *benchEditor) open(tb testing.TB, cwd string) string {
	e.call(tb, "initialize", map[string]any{"protocolVersion": 1})
	var r struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(e.call(tb, "session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}}), &r)
	return r.SessionID
}

func (e *benchEditor) prompt(tb testing.TB, sid, text string) {
	tb.Helper()
	res := e.call(tb, "session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": text}}})
	if !bytes.Contains(res, []byte("end_turn")) {
		tb.Fatalf("prompt: %s", res)
	}
}

func (e *benchEditor) counts() (updates, bytes int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.updates, e.bytes
}

// sseTextBody is an Anthropic SSE body streaming n text deltas of 16
// bytes (a typical token delta).
func sseTextBody(n int) []byte {
	var b bytes.Buffer
	b.WriteString("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_b\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-test\",\"content\":[],\"usage\":{\"input_tokens\":100,\"output_tokens\":1}}}\n\n")
	b.WriteString("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
	for i := range n {
		fmt.Fprintf(&b, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"d%06d lorem   \"}}\n\n", i)
	}
	b.WriteString("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n")
	fmt.Fprintf(&b, "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":%d}}\n\n", n)
	b.WriteString("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	return b.Bytes()
}

// benchProvider is the Anthropic provider pointed at a local server that
// answers every request with body.
func benchProvider(tb testing.TB, body func(req []byte) []byte) *anthropic.Provider {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(body(req))
	}))
	tb.Cleanup(srv.Close)
	return looptest.AnthropicProvider(tb, anthropic.Config{BaseURL: srv.URL, Model: "claude-test", MaxRetries: -1})
}

// builtinHooks is the hook pipeline cordis runs by default (every
// built-in with its default configuration).
func builtinHooks(tb testing.TB) hooks.Seams {
	p := hooks.NewPipeline()
	set, err := builtin.Register(p, builtin.DefaultConfig(), builtin.Options{StateDir: tb.TempDir()})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { set.Close() })
	return p
}

// BenchmarkStreamDeltas measures the whole in-process pipe of one turn:
// the Anthropic SSE body from a local HTTP server, the decoder, the loop,
// the session log, and one session/update frame per delta written to the
// editor's pipe. One op is one delta; the cost per delta must not grow
// with the length of the answer.
func BenchmarkStreamDeltas(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		for _, withHooks := range []bool{false, true} {
			name := fmt.Sprintf("deltas=%d/hooks=none", n)
			if withHooks {
				name = fmt.Sprintf("deltas=%d/hooks=builtin", n)
			}
			b.Run(name, func(b *testing.B) {
				body := sseTextBody(n)
				cfg := loop.Config{Provider: benchProvider(b, func([]byte) []byte { return body }), Model: "claude-test", StateDir: b.TempDir()}
				if withHooks {
					cfg.Hooks = builtinHooks(b)
				}
				e := startBench(b, cfg)
				cwd := b.TempDir()
				turns := 0
				b.ReportAllocs()
				b.ResetTimer()
				start := time.Now()
				for b.Loop() {
					// A fresh session per turn: the history (and so the
					// request) stays the same size.
					sid := e.open(b, cwd)
					e.prompt(b, sid, "Stream.")
					turns++
				}
				elapsed := time.Since(start)
				updates, size := e.counts()
				deltas := float64(turns * n)
				b.ReportMetric(0, "ns/op")
				b.ReportMetric(float64(elapsed.Nanoseconds())/deltas, "ns/delta")
				b.ReportMetric(deltas/elapsed.Seconds(), "deltas/s")
				b.ReportMetric(float64(size)/elapsed.Seconds()/1e6, "MB/s")
				if updates < turns*n {
					b.Fatalf("saw %d session/update frames for %d deltas", updates, turns*n)
				}
			})
		}
	}
}
