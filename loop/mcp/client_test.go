package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cordis-agent/cordis/loop/commands"
	"github.com/cordis-agent/cordis/loop/mcp"
	"github.com/cordis-agent/cordis/loop/mcp/mcptest"
	"github.com/cordis-agent/cordis/loop/tools"
)

// These tests hold the client to what the MCP SDK's client did for cordis:
// the transports' details, the server's requests, pagination, version
// checks and cancellation, against servers scripted here.

// rpc is a JSON-RPC message as the scripted servers see it.
type rpc struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

func (m rpc) String() string {
	b, _ := json.Marshal(m)
	return string(b)
}

// request is one HTTP request a scripted server received.
type request struct {
	HTTP, RPC, Session, Version, Accept, Auth string
}

// scripted is a streamable HTTP MCP server. It answers initialize itself
// (with the session id "sess-1" and version), tools/list with tools and
// tools/call and prompts/get with call. With events set, answers are event
// streams on which call may first send the server's own messages;
// otherwise JSON bodies.
type scripted struct {
	URL     string
	version string
	events  bool
	// tools answers tools/list (the cursor given).
	tools func(cursor string) any
	// call answers other requests; send writes a message to the answer's
	// event stream first.
	call func(ctx context.Context, m rpc, send func(any)) any

	srv     *httptest.Server
	answers chan rpc // the client's answers to the server's requests
	notes   chan rpc // the client's notifications

	mu       sync.Mutex
	requests []request
	expired  bool
}

func newScripted(t *testing.T, events bool) *scripted {
	f := &scripted{version: "2025-06-18", events: events, answers: make(chan rpc, 10), notes: make(chan rpc, 100)}
	f.tools = func(string) any {
		return map[string]any{"tools": []any{map[string]any{"name": "t", "inputSchema": map[string]any{"type": "object"}}}}
	}
	f.srv = httptest.NewServer(f)
	f.URL = f.srv.URL + "/mcp"
	t.Cleanup(f.srv.Close)
	return f
}

func (f *scripted) log() []request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]request(nil), f.requests...)
}

func (f *scripted) expire() {
	f.mu.Lock()
	f.expired = true
	f.mu.Unlock()
}

func (f *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var m rpc
	if r.Method == http.MethodPost {
		json.NewDecoder(r.Body).Decode(&m)
	}
	f.mu.Lock()
	f.requests = append(f.requests, request{HTTP: r.Method, RPC: m.Method, Session: r.Header.Get("Mcp-Session-Id"),
		Version: r.Header.Get("MCP-Protocol-Version"), Accept: r.Header.Get("Accept"), Auth: r.Header.Get("Authorization")})
	expired := f.expired
	f.mu.Unlock()
	switch {
	case r.Method == http.MethodGet:
		http.Error(w, "no stream here", http.StatusMethodNotAllowed)
		return
	case r.Method == http.MethodDelete:
		return
	case expired:
		http.Error(w, "session not found", http.StatusNotFound)
		return
	case m.Method == "":
		f.answers <- m
		w.WriteHeader(http.StatusAccepted)
		return
	case len(m.ID) == 0:
		f.notes <- m
		w.WriteHeader(http.StatusAccepted)
		return
	}
	var (
		result any
		send   = func(any) { panic("send needs events") }
	)
	if f.events {
		w.Header().Set("Content-Type", "text/event-stream")
		send = func(v any) {
			b, _ := json.Marshal(v)
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", b)
			w.(http.Flusher).Flush()
		}
	} else {
		w.Header().Set("Content-Type", "application/json")
	}
	switch m.Method {
	case "initialize":
		w.Header().Set("Mcp-Session-Id", "sess-1")
		result = map[string]any{"protocolVersion": f.version, "capabilities": map[string]any{"tools": map[string]any{}}, "serverInfo": map[string]any{"name": "scripted", "version": "1"}}
	case "tools/list":
		var p struct{ Cursor string }
		json.Unmarshal(m.Params, &p)
		result = f.tools(p.Cursor)
	default:
		result = f.call(r.Context(), m, send)
	}
	if result == nil {
		return // no answer
	}
	answer := map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result}
	if f.events {
		send(answer)
	} else {
		json.NewEncoder(w).Encode(answer)
	}
}

func textResult(s string) any {
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}}
}

// The SDK's streamable server, answering with JSON bodies rather than
// event streams (TestHTTPAndSSE has the event streams).
func TestStreamableJSONAnswers(t *testing.T) {
	srv := mcptest.NewHTTPServer()
	t.Cleanup(srv.Close)
	m := start(t, mcp.Options{}, mcp.Spec{Name: "web", Type: "http", URL: srv.JSONURL})
	if got := call(t, find(t, m.Tools(context.Background()), "mcp__web__greet"), `{"name":"Ada"}`); got.IsError || got.Text != "hello, Ada" {
		t.Errorf("greet = %+v", got)
	}
	_, cmds := m.Commands(context.Background())
	if len(cmds) != 1 {
		t.Fatalf("commands = %v", cmds)
	}
	got := cmds[0].(*commands.Local).Run(context.Background(), &commands.Invocation{Args: "Grace"})
	if diff := cmp.Diff(commands.SubmitPrompt{Text: "Say hello to Grace."}, got); diff != "" {
		t.Errorf("prompt (-want +got):\n%s", diff)
	}
}

// The session id of initialize's answer, and the negotiated version after
// it, go on every later request; the editor's headers on all; notifications
// are accepted with 202; Close ends the session with DELETE.
func TestStreamableSession(t *testing.T) {
	f := newScripted(t, false)
	f.call = func(context.Context, rpc, func(any)) any { return textResult("done") }
	m := mcp.Start(context.Background(), []mcp.Spec{{Name: "web", Type: "http", URL: f.URL, Headers: []mcp.Header{{Name: "Authorization", Value: "Bearer x"}}}}, mcp.Options{})
	if got := call(t, find(t, m.Tools(context.Background()), "mcp__web__t"), `{}`); got.IsError || got.Text != "done" {
		t.Errorf("t = %+v", got)
	}
	m.Close()

	var posts []string
	log := f.log()
	for i, r := range log {
		if r.Auth != "Bearer x" {
			t.Errorf("request %d (%s %s) without the editor's header", i, r.HTTP, r.RPC)
		}
		if r.HTTP == http.MethodPost {
			posts = append(posts, r.RPC)
			if r.Accept != "application/json, text/event-stream" {
				t.Errorf("%s: Accept %q", r.RPC, r.Accept)
			}
		}
		if i == 0 {
			if r.RPC != "initialize" || r.Session != "" || r.Version != "" {
				t.Errorf("first request = %+v, want initialize without session or version", r)
			}
			continue
		}
		if r.Session != "sess-1" || r.Version != "2025-06-18" {
			t.Errorf("request %d (%s %s): session %q, version %q", i, r.HTTP, r.RPC, r.Session, r.Version)
		}
	}
	if diff := cmp.Diff([]string{"initialize", "notifications/initialized", "tools/list", "tools/call"}, posts); diff != "" {
		t.Errorf("POSTs (-want +got):\n%s", diff)
	}
	if last := log[len(log)-1]; last.HTTP != http.MethodDelete {
		t.Errorf("last request = %+v, want the DELETE of Close", last)
	}
}

// On an answer's event stream, what the server sends before the answer is
// handled before the caller gets it: a list_changed (the next Tools lists
// the new tool), and requests of the server, which the client answers:
// roots/list with the roots, others with method not found.
func TestStreamableEventStream(t *testing.T) {
	f := newScripted(t, true)
	var (
		mu    sync.Mutex
		extra bool
	)
	f.tools = func(string) any {
		list := []any{map[string]any{"name": "change"}, map[string]any{"name": "vanish"}}
		mu.Lock()
		defer mu.Unlock()
		if extra {
			list = append(list, map[string]any{"name": "extra"})
		}
		return map[string]any{"tools": list}
	}
	f.call = func(_ context.Context, m rpc, send func(any)) any {
		var p struct{ Name string }
		json.Unmarshal(m.Params, &p)
		if p.Name == "vanish" {
			return nil // the stream ends without an answer
		}
		mu.Lock()
		extra = true
		mu.Unlock()
		send(map[string]any{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
		send(map[string]any{"jsonrpc": "2.0", "id": "r1", "method": "roots/list"})
		roots := <-f.answers
		send(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "sampling/createMessage", "params": map[string]any{}})
		unknown := <-f.answers
		return textResult(roots.String() + "\n" + unknown.String())
	}
	m := start(t, mcp.Options{Roots: []string{"/work/my project"}}, mcp.Spec{Name: "web", Type: "http", URL: f.URL})
	ts := m.Tools(context.Background())
	got := call(t, find(t, ts, "mcp__web__change"), `{}`)
	roots, unknown, _ := strings.Cut(got.Text, "\n")
	var answers [2]struct {
		ID     any
		Result struct{ Roots []struct{ URI, Name string } }
		Error  struct{ Code int }
	}
	if err := json.Unmarshal([]byte(roots), &answers[0]); err != nil || got.IsError {
		t.Fatalf("change = %+v (%v)", got, err)
	}
	if err := json.Unmarshal([]byte(unknown), &answers[1]); err != nil {
		t.Fatalf("change = %+v (%v)", got, err)
	}
	if r := answers[0].Result.Roots; answers[0].ID != "r1" || len(r) != 1 || r[0].URI != "file:///work/my%20project" || r[0].Name != "my project" {
		t.Errorf("roots/list answered %s", roots)
	}
	if answers[1].ID != 7.0 || answers[1].Error.Code != -32601 {
		t.Errorf("sampling/createMessage answered %s, want method not found", unknown)
	}
	if _, ok := tools.ByName(m.Tools(context.Background()), "mcp__web__extra"); !ok {
		t.Error("the tool added with list_changed is not listed by the next Tools")
	}
	got = call(t, find(t, ts, "mcp__web__vanish"), `{}`)
	if want := `The MCP server "web" failed to run vanish: `; !got.IsError || !strings.HasPrefix(got.Text, want) {
		t.Errorf("vanish = %+v, want an error starting %q", got, want)
	}
}

// A server that answers 404 to the session has ended it: the server is
// then unavailable, and says why.
func TestStreamableExpiredSession(t *testing.T) {
	f := newScripted(t, false)
	f.call = func(context.Context, rpc, func(any)) any { return textResult("done") }
	m := start(t, mcp.Options{}, mcp.Spec{Name: "web", Type: "http", URL: f.URL})
	tool := find(t, m.Tools(context.Background()), "mcp__web__t")
	f.expire()
	want := `The MCP server "web" ended the MCP session while running t. Its tools are unavailable for the rest of this session.`
	if got := call(t, tool, `{}`); !got.IsError || got.Text != want {
		t.Errorf("t = %+v, want %q", got, want)
	}
	want = `The MCP server "web" is not running: ended the MCP session. Its tools are unavailable for the rest of this session.`
	if got := call(t, tool, `{}`); !got.IsError || got.Text != want {
		t.Errorf("t again = %+v, want %q", got, want)
	}
	if st := m.Status(); st[0].Line() != "✗ MCP server web (http): ended the MCP session" {
		t.Errorf("status = %q", st[0].Line())
	}
}

// A call that times out is cancelled on the server.
func TestCancelTellsServer(t *testing.T) {
	f := newScripted(t, false)
	calls := make(chan json.RawMessage, 1)
	f.call = func(ctx context.Context, m rpc, _ func(any)) any {
		calls <- m.ID
		<-ctx.Done() // never answers; the client gives up
		return nil
	}
	m := start(t, mcp.Options{CallTimeout: 100 * time.Millisecond}, mcp.Spec{Name: "web", Type: "http", URL: f.URL})
	got := call(t, find(t, m.Tools(context.Background()), "mcp__web__t"), `{}`)
	if want := `The MCP server "web" did not answer t within 100ms; the call was abandoned.`; !got.IsError || got.Text != want {
		t.Errorf("t = %+v, want %q", got, want)
	}
	id := <-calls
	for n := range f.notes {
		if n.Method != "notifications/cancelled" {
			continue
		}
		var p struct{ RequestID json.RawMessage }
		if json.Unmarshal(n.Params, &p) != nil || string(p.RequestID) != string(id) {
			t.Errorf("cancelled params = %s, want requestId %s", n.Params, id)
		}
		break
	}
}

// Close does not wait for a call in progress (here a POST whose answer
// never comes): the call fails at once. Were it waited for, the test would
// hang, as the call timeout is an hour.
func TestCloseEndsCallsInProgress(t *testing.T) {
	f := newScripted(t, false)
	var once sync.Once
	called := make(chan struct{})
	f.call = func(ctx context.Context, _ rpc, _ func(any)) any {
		once.Do(func() { close(called) })
		<-ctx.Done()
		return nil
	}
	m := mcp.Start(context.Background(), []mcp.Spec{{Name: "web", Type: "http", URL: f.URL}}, mcp.Options{CallTimeout: time.Hour})
	tool := find(t, m.Tools(context.Background()), "mcp__web__t")
	done := make(chan tools.Result)
	go func() { done <- tool.Run(context.Background(), &tools.Env{}, json.RawMessage(`{}`)) }()
	<-called
	m.Close()
	if got := <-done; !got.IsError {
		t.Errorf("the call in progress at Close = %+v, want an error", got)
	}
}

// tools/list follows nextCursor, and stops at a cursor it has followed
// already.
func TestPagination(t *testing.T) {
	f := newScripted(t, false)
	f.tools = func(cursor string) any {
		page := map[string]any{"": "a", "c1": "b"}[cursor]
		return map[string]any{"tools": []any{map[string]any{"name": page}}, "nextCursor": "c1"}
	}
	m := start(t, mcp.Options{}, mcp.Spec{Name: "p", Type: "http", URL: f.URL})
	if diff := cmp.Diff([]string{"mcp__p__a", "mcp__p__b"}, toolNames(m.Tools(context.Background()))); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	n := 0
	for _, r := range f.log() {
		if r.RPC == "tools/list" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d tools/list requests, want 2", n)
	}
}

func TestUnsupportedVersion(t *testing.T) {
	f := newScripted(t, false)
	f.version = "2099-01-01"
	m := start(t, mcp.Options{}, mcp.Spec{Name: "future", Type: "http", URL: f.URL})
	want := []string{`MCP server "future" (http) is unavailable: the MCP handshake failed: unsupported protocol version: "2099-01-01"`}
	if diff := cmp.Diff(want, m.Failures()); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
}

// A stdio server's lines that are not messages (or answer nothing) are
// dropped; the session goes on.
func TestStdioMalformedLines(t *testing.T) {
	m := start(t, mcp.Options{}, stdio("noisy", "noisy"))
	if f := m.Failures(); f != nil {
		t.Fatalf("failures = %v", f)
	}
	for _, text := range []string{"one", "two"} {
		if got := call(t, find(t, m.Tools(context.Background()), "mcp__noisy__echo"), `{"text":"`+text+`"}`); got.IsError || got.Text != "echo: "+text {
			t.Errorf("echo = %+v", got)
		}
	}
}

// legacy is a 2024-11-05 SSE server: GET /base/sse gives the endpoint
// event; messages POSTed to it are answered on the stream.
type legacy struct {
	endpoint string
	srv      *httptest.Server
	posts    chan string // the URLs POSTed to
	out      chan []byte // messages for the stream
	end      chan struct{}
	endOnce  sync.Once
	// cutPosts makes the server go away as a crashing one does: the next
	// POST's connection is closed unanswered and the stream ends a moment
	// later.
	cutPosts atomic.Bool
}

func newLegacy(t *testing.T, endpoint string) *legacy {
	l := &legacy{endpoint: endpoint, posts: make(chan string, 100), out: make(chan []byte, 100), end: make(chan struct{})}
	l.srv = httptest.NewServer(l)
	t.Cleanup(func() {
		l.closeStream()
		l.srv.Close()
	})
	return l
}

func (l *legacy) closeStream() { l.endOnce.Do(func() { close(l.end) }) }

func (l *legacy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == "/base/sse" {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: endpoint\ndata: %s\n\n", l.endpoint)
		w.(http.Flusher).Flush()
		for {
			select {
			case b := <-l.out:
				fmt.Fprintf(w, "event: message\ndata: %s\n\n", b)
				w.(http.Flusher).Flush()
			case <-l.end:
				return
			case <-r.Context().Done():
				return
			}
		}
	}
	l.posts <- r.URL.String()
	if l.cutPosts.Load() {
		time.AfterFunc(100*time.Millisecond, l.closeStream)
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			conn.Close()
		}
		return
	}
	var m rpc
	json.NewDecoder(r.Body).Decode(&m)
	w.WriteHeader(http.StatusAccepted)
	var result any
	switch m.Method {
	case "initialize":
		result = map[string]any{"protocolVersion": "2024-11-05", "capabilities": map[string]any{"tools": map[string]any{}}, "serverInfo": map[string]any{"name": "legacy", "version": "1"}}
	case "tools/list":
		result = map[string]any{"tools": []any{map[string]any{"name": "t"}}}
	case "tools/call":
		result = textResult("done")
	default:
		return
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
	l.out <- b
}

// The endpoint event's URL is resolved against the stream's; messages are
// POSTed there and answered on the stream. When the stream ends, so does
// the server's session.
func TestLegacySSERelativeEndpoint(t *testing.T) {
	l := newLegacy(t, "messages?session=abc")
	m := start(t, mcp.Options{}, mcp.Spec{Name: "old", Type: "sse", URL: l.srv.URL + "/base/sse"})
	tool := find(t, m.Tools(context.Background()), "mcp__old__t")
	if got := call(t, tool, `{}`); got.IsError || got.Text != "done" {
		t.Errorf("t = %+v", got)
	}
	if got := <-l.posts; got != "/base/messages?session=abc" {
		t.Errorf("POSTed to %s", got)
	}
	l.closeStream()
	if got := call(t, tool, `{}`); !got.IsError || !strings.Contains(got.Text, "closed its event stream") {
		t.Errorf("t after the stream ended = %+v", got)
	}
}

// A POST cut off a moment before the stream ends is the server going
// away, not a failure of one call: the model is told the server closed its
// stream and its tools are gone.
func TestLegacySSEPostCutAsTheStreamEnds(t *testing.T) {
	l := newLegacy(t, "messages")
	m := start(t, mcp.Options{}, mcp.Spec{Name: "old", Type: "sse", URL: l.srv.URL + "/base/sse"})
	tool := find(t, m.Tools(context.Background()), "mcp__old__t")
	l.cutPosts.Store(true)
	if got := call(t, tool, `{}`); !got.IsError || !strings.Contains(got.Text, "closed its event stream") {
		t.Errorf("t as the server went away = %+v", got)
	}
}

// The editor's headers go to the endpoint too, so it must be on the
// server's origin.
func TestLegacySSEForeignEndpoint(t *testing.T) {
	l := newLegacy(t, "http://elsewhere.example/messages")
	m := start(t, mcp.Options{}, mcp.Spec{Name: "old", Type: "sse", URL: l.srv.URL + "/base/sse"})
	fails := m.Failures()
	if len(fails) != 1 || !strings.HasPrefix(fails[0], `MCP server "old" (sse) is unavailable: the MCP handshake failed: `) ||
		!strings.HasSuffix(fails[0], `the endpoint http://elsewhere.example/messages is not on the server's origin`) {
		t.Errorf("failures = %q, want the foreign endpoint refused", fails)
	}
}
