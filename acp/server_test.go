package acp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/acp/acptest"
	"github.com/sourcegraph/jsonrpc2"
)

// fakeAgent is a minimal acp.Agent whose Prompt is scripted by the test.
type fakeAgent struct {
	client *acp.Client
	prompt func(ctx context.Context, c *acp.Client, req *acp.PromptRequest) (*acp.PromptResponse, error)

	mu       sync.Mutex
	sessions map[string]bool
	opened   []string
}

func newFake(prompt func(context.Context, *acp.Client, *acp.PromptRequest) (*acp.PromptResponse, error)) func(*acp.Client) acp.Agent {
	return func(c *acp.Client) acp.Agent {
		return &fakeAgent{client: c, prompt: prompt, sessions: map[string]bool{}}
	}
}

func (a *fakeAgent) Initialize(ctx context.Context, req *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	return &acp.InitializeResponse{ProtocolVersion: acp.ProtocolVersion, AuthMethods: []acp.AuthMethod{}, AgentInfo: &acp.Implementation{Name: "fake", Version: "0"}}, nil
}
func (a *fakeAgent) Authenticate(context.Context, *acp.AuthenticateRequest) error { return nil }
func (a *fakeAgent) NewSession(ctx context.Context, req *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	id := "s" + string(rune('0'+len(a.sessions)))
	a.sessions[id] = true
	return &acp.NewSessionResponse{SessionID: id}, nil
}
func (a *fakeAgent) LoadSession(ctx context.Context, req *acp.LoadSessionRequest) (*acp.LoadSessionResponse, error) {
	return nil, acp.SessionNotFound(req.SessionID)
}
func (a *fakeAgent) ListSessions(context.Context, *acp.ListSessionsRequest) (*acp.ListSessionsResponse, error) {
	return &acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}}, nil
}
func (a *fakeAgent) CloseSession(context.Context, *acp.CloseSessionRequest) error { return nil }
func (a *fakeAgent) SetSessionMode(context.Context, *acp.SetSessionModeRequest) error {
	return nil
}
func (a *fakeAgent) SetSessionConfigOption(context.Context, *acp.SetSessionConfigOptionRequest) (*acp.SetSessionConfigOptionResponse, error) {
	return &acp.SetSessionConfigOptionResponse{ConfigOptions: []acp.ConfigOption{}}, nil
}
func (a *fakeAgent) SessionOpened(ctx context.Context, id string) {
	a.mu.Lock()
	a.opened = append(a.opened, id)
	a.mu.Unlock()
	a.client.SessionUpdate(ctx, id, acp.AvailableCommandsUpdate{AvailableCommands: []acp.AvailableCommand{}})
}
func (a *fakeAgent) Prompt(ctx context.Context, req *acp.PromptRequest) (*acp.PromptResponse, error) {
	a.mu.Lock()
	known := a.sessions[req.SessionID]
	a.mu.Unlock()
	if !known {
		return nil, acp.SessionNotFound(req.SessionID)
	}
	return a.prompt(ctx, a.client, req)
}
func (a *fakeAgent) Shutdown(context.Context) {}

func endTurn(ctx context.Context, c *acp.Client, req *acp.PromptRequest) (*acp.PromptResponse, error) {
	c.SessionUpdate(ctx, req.SessionID, acp.AgentMessageChunk{Content: acp.TextBlock("hello")})
	return &acp.PromptResponse{StopReason: acp.StopEndTurn}, nil
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestHandshakeAndUpdatesAfterNewSessionResponse(t *testing.T) {
	ctx := ctxT(t)
	e := acptest.Start(t, newFake(endTurn))
	init := e.Initialize(ctx, acp.ClientCapabilities{})
	if init.ProtocolVersion != 1 || init.AgentInfo.Name != "fake" {
		t.Fatalf("initialize = %+v", init)
	}
	sess := e.NewSession(ctx, "/tmp")
	stop, err := e.Prompt(ctx, sess.SessionID, "hi")
	if err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	// The available_commands_update must follow the session/new response.
	frames := e.Frames()
	respAt, updateAt := -1, -1
	for i, f := range frames {
		s := string(f)
		if strings.Contains(s, `"sessionId":"s0"`) && strings.Contains(s, `"result"`) && respAt < 0 {
			respAt = i
		}
		if strings.Contains(s, "available_commands_update") && updateAt < 0 {
			updateAt = i
		}
	}
	if respAt < 0 || updateAt < 0 || updateAt < respAt {
		t.Fatalf("session/new response at frame %d, available_commands_update at %d; frames:\n%s", respAt, updateAt, joinFrames(frames))
	}
	if got := e.Updates(sess.SessionID); len(got) != 2 {
		t.Fatalf("updates = %d, want 2 (commands, hello)", len(got))
	}
}

func TestProtocolVersionNegotiatesDown(t *testing.T) {
	ctx := ctxT(t)
	e := acptest.Start(t, newFake(endTurn))
	var resp acp.InitializeResponse
	if err := e.Call(ctx, acp.MethodInitialize, map[string]any{"protocolVersion": 7}, &resp); err != nil {
		t.Fatal(err)
	}
	if resp.ProtocolVersion != 1 {
		t.Fatalf("protocolVersion = %d, want 1 for a client asking 7", resp.ProtocolVersion)
	}
}

func joinFrames(fs []json.RawMessage) string {
	var b strings.Builder
	for _, f := range fs {
		b.Write(f)
		b.WriteByte('\n')
	}
	return b.String()
}

// waitFrame polls the recorded frames for one matching pred.
func waitFrame(t *testing.T, e *acptest.Editor, pred func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, f := range e.Frames() {
			var m map[string]any
			if json.Unmarshal(f, &m) == nil && pred(m) {
				return m
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no matching frame; frames:\n%s", joinFrames(e.Frames()))
	return nil
}

func errorCode(m map[string]any) int {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return int(c)
}

func TestBadInputIsAnsweredAndServingContinues(t *testing.T) {
	tests := []struct {
		name     string
		line     string
		wantID   any // nil means id null
		wantCode int
		wantMsg  string
	}{
		{"not json", `this is not json`, nil, acp.CodeParseError, "parse error"},
		{"truncated object", `{"jsonrpc":"2.0","id":5,"method":"initialize"`, nil, acp.CodeParseError, "parse error"},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}]`, nil, acp.CodeInvalidRequest, "batch"},
		{"neither request nor response", `{"jsonrpc":"2.0","id":"x1"}`, "x1", acp.CodeInvalidRequest, "invalid request"},
		{"unknown method", `{"jsonrpc":"2.0","id":"m1","method":"no/such"}`, "m1", acp.CodeMethodNotFound, "no/such"},
		{"params of wrong type", `{"jsonrpc":"2.0","id":"p1","method":"session/new","params":{"cwd":5,"mcpServers":[]}}`, "p1", acp.CodeInvalidParams, `"cwd"`},
		{"missing required field", `{"jsonrpc":"2.0","id":"p2","method":"session/prompt","params":{"prompt":[]}}`, "p2", acp.CodeInvalidParams, `"sessionId"`},
		{"relative cwd", `{"jsonrpc":"2.0","id":"p3","method":"session/new","params":{"cwd":"rel","mcpServers":[]}}`, "p3", acp.CodeInvalidParams, "absolute"},
		{"params not an object", `{"jsonrpc":"2.0","id":"p4","method":"session/new","params":[1]}`, "p4", acp.CodeInvalidParams, "object"},
		{"unknown session", `{"jsonrpc":"2.0","id":"u1","method":"session/prompt","params":{"sessionId":"nope","prompt":[{"type":"text","text":"x"}]}}`, "u1", acp.CodeResourceNotFound, "nope"},
		{"unknown extension request", `{"jsonrpc":"2.0","id":"x2","method":"_vendor/thing","params":{}}`, "x2", acp.CodeMethodNotFound, "_vendor/thing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := ctxT(t)
			e := acptest.Start(t, newFake(endTurn))
			e.Initialize(ctx, acp.ClientCapabilities{})
			before := len(e.Frames())
			if err := e.WriteRaw(tt.line); err != nil {
				t.Fatal(err)
			}
			got := waitFrame(t, e, func(m map[string]any) bool {
				return m["error"] != nil && m["id"] == tt.wantID
			})
			if c := errorCode(got); c != tt.wantCode {
				t.Errorf("code = %d, want %d (%v)", c, tt.wantCode, got)
			}
			msg := got["error"].(map[string]any)["message"].(string)
			if !strings.Contains(msg, tt.wantMsg) {
				t.Errorf("message %q does not mention %q", msg, tt.wantMsg)
			}
			// The connection lives on: a good request is still answered.
			sess := e.NewSession(ctx, "/tmp")
			if sess.SessionID == "" {
				t.Fatal("no session after bad input")
			}
			if len(e.Frames()) <= before {
				t.Fatal("no frames after bad input")
			}
		})
	}
}

func TestNotificationWithoutIDIsDroppedSilently(t *testing.T) {
	ctx := ctxT(t)
	e := acptest.Start(t, newFake(endTurn))
	e.Initialize(ctx, acp.ClientCapabilities{})
	e.WriteRaw(`{"jsonrpc":"2.0","method":5}`)
	e.WriteRaw(`{"jsonrpc":"2.0","method":"_unknown/notification","params":{}}`)
	n := len(e.Frames())
	e.NewSession(ctx, "/tmp")
	frames := e.Frames()[n:]
	for _, f := range frames {
		if strings.Contains(string(f), `"error"`) {
			t.Fatalf("a notification was answered with an error: %s", f)
		}
	}
}

func TestRequestsBeforeInitializeAreRejected(t *testing.T) {
	ctx := ctxT(t)
	e := acptest.Start(t, newFake(endTurn))
	var resp acp.NewSessionResponse
	err := e.Call(ctx, acp.MethodSessionNew, acp.NewSessionRequest{Cwd: "/tmp", MCPServers: []acp.MCPServer{}}, &resp)
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != acp.CodeInvalidRequest || !strings.Contains(rpcErr.Message, "initialize") {
		t.Fatalf("session/new before initialize: err = %v, want -32600 mentioning initialize", err)
	}
	e.Initialize(ctx, acp.ClientCapabilities{})
	if s := e.NewSession(ctx, "/tmp"); s.SessionID == "" {
		t.Fatal("no session after initialize")
	}
}

// A prompt whose turn calls back into the editor must complete: the read
// loop has to stay free while the turn waits.
func TestReverseCallDuringPromptDoesNotDeadlock(t *testing.T) {
	ctx := ctxT(t)
	var outcome string
	e := acptest.Start(t, newFake(func(ctx context.Context, c *acp.Client, req *acp.PromptRequest) (*acp.PromptResponse, error) {
		resp, err := c.RequestPermission(ctx, &acp.RequestPermissionRequest{
			SessionID: req.SessionID,
			ToolCall:  acp.ToolCallUpdate{ToolCallID: "t1", Title: "Bash"},
			Options:   []acp.PermissionOption{{OptionID: "allow", Name: "Allow", Kind: acp.PermAllowOnce}},
		})
		if err != nil {
			return nil, err
		}
		outcome = resp.Outcome.OptionID
		return &acp.PromptResponse{StopReason: acp.StopEndTurn}, nil
	}))
	e.OnPermission = func(ctx context.Context, p *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: p.Options[0].OptionID}}, nil
	}
	e.Initialize(ctx, acp.ClientCapabilities{})
	sess := e.NewSession(ctx, "/tmp")
	stop, err := e.Prompt(ctx, sess.SessionID, "go")
	if err != nil || stop != acp.StopEndTurn || outcome != "allow" {
		t.Fatalf("prompt = %q, %v; permission outcome %q", stop, err, outcome)
	}
}

// session/cancel written right after session/prompt must always find the
// turn: the prompt is registered on the read goroutine before the cancel
// is read.
func TestPromptThenCancelAlwaysCancels(t *testing.T) {
	ctx := ctxT(t)
	e := acptest.Start(t, newFake(func(ctx context.Context, c *acp.Client, req *acp.PromptRequest) (*acp.PromptResponse, error) {
		select {
		case <-ctx.Done():
			return &acp.PromptResponse{StopReason: acp.StopCancelled}, nil
		case <-time.After(20 * time.Second):
			return &acp.PromptResponse{StopReason: acp.StopEndTurn}, nil
		}
	}))
	e.Initialize(ctx, acp.ClientCapabilities{})
	sess := e.NewSession(ctx, "/tmp")
	for i := range 100 {
		prompt := `{"jsonrpc":"2.0","id":"c` + itoa(i) + `","method":"session/prompt","params":{"sessionId":"` + sess.SessionID + `","prompt":[{"type":"text","text":"x"}]}}`
		cancel := `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"` + sess.SessionID + `"}}`
		if err := e.WriteRaw(prompt + "\n" + cancel); err != nil {
			t.Fatal(err)
		}
		id := "c" + itoa(i)
		got := waitFrame(t, e, func(m map[string]any) bool { return m["id"] == id })
		res, _ := got["result"].(map[string]any)
		if res["stopReason"] != "cancelled" {
			t.Fatalf("run %d: response %v, want stopReason cancelled", i, got)
		}
	}
}

// A turn that fails after a cancel still answers `cancelled`, never an error.
func TestCancelledTurnThatErrorsAnswersCancelled(t *testing.T) {
	ctx := ctxT(t)
	started := make(chan struct{})
	e := acptest.Start(t, newFake(func(ctx context.Context, c *acp.Client, req *acp.PromptRequest) (*acp.PromptResponse, error) {
		close(started)
		<-ctx.Done()
		return nil, errors.New("stream aborted: context canceled")
	}))
	e.Initialize(ctx, acp.ClientCapabilities{})
	sess := e.NewSession(ctx, "/tmp")
	go func() {
		<-started
		e.Notify(ctx, acp.MethodSessionCancel, acp.CancelNotification{SessionID: sess.SessionID})
	}()
	stop, err := e.Prompt(ctx, sess.SessionID, "x")
	if err != nil || stop != acp.StopCancelled {
		t.Fatalf("prompt = %q, %v; want cancelled and no error", stop, err)
	}
}

func TestPanicInTurnIsAnInternalError(t *testing.T) {
	ctx := ctxT(t)
	e := acptest.Start(t, newFake(func(context.Context, *acp.Client, *acp.PromptRequest) (*acp.PromptResponse, error) {
		panic("boom")
	}))
	e.Initialize(ctx, acp.ClientCapabilities{})
	sess := e.NewSession(ctx, "/tmp")
	_, err := e.Prompt(ctx, sess.SessionID, "x")
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != acp.CodeInternalError {
		t.Fatalf("err = %v, want -32603", err)
	}
	if s := e.NewSession(ctx, "/tmp"); s.SessionID == "" {
		t.Fatal("server stopped serving after a panic")
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestOptionalSessionMethods: session/resume and session/delete reach an
// agent that implements them; for one that does not they are unknown
// methods, whatever their params.
func TestOptionalSessionMethods(t *testing.T) {
	ctx := ctxT(t)
	e := acptest.Start(t, newFake(endTurn))
	e.Initialize(ctx, acp.ClientCapabilities{})
	for _, m := range []string{acp.MethodSessionResume, acp.MethodSessionDelete} {
		err := e.Call(ctx, m, map[string]any{"sessionId": "s0", "cwd": "/tmp"}, &json.RawMessage{})
		var rpcErr *jsonrpc2.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != acp.CodeMethodNotFound {
			t.Errorf("%s to an agent without it: %v, want -32601", m, err)
		}
	}

	r := &resumingFake{}
	e2 := acptest.Start(t, func(c *acp.Client) acp.Agent { r.fakeAgent = newFake(endTurn)(c).(*fakeAgent); return r })
	e2.Initialize(ctx, acp.ClientCapabilities{})
	if err := e2.Call(ctx, acp.MethodSessionResume, acp.ResumeSessionRequest{SessionID: "s0", Cwd: "/tmp"}, &json.RawMessage{}); err != nil {
		t.Fatal(err)
	}
	if err := e2.Call(ctx, acp.MethodSessionResume, map[string]any{"sessionId": "s0", "cwd": "relative"}, &json.RawMessage{}); err == nil {
		t.Error("resume with a relative cwd was accepted")
	}
	if err := e2.Call(ctx, acp.MethodSessionDelete, acp.DeleteSessionRequest{SessionID: "s0"}, &json.RawMessage{}); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.resumed != 1 || r.deleted != 1 || len(r.opened) != 1 || r.opened[0] != "s0" {
		t.Fatalf("resumed %d, deleted %d, opened %v; want 1, 1, [s0] (SessionOpened after resume)", r.resumed, r.deleted, r.opened)
	}
}

type resumingFake struct {
	*fakeAgent
	resumed, deleted int
}

func (r *resumingFake) ResumeSession(ctx context.Context, req *acp.ResumeSessionRequest) (*acp.ResumeSessionResponse, error) {
	r.mu.Lock()
	r.resumed++
	r.mu.Unlock()
	return &acp.ResumeSessionResponse{}, nil
}

func (r *resumingFake) DeleteSession(ctx context.Context, req *acp.DeleteSessionRequest) error {
	r.mu.Lock()
	r.deleted++
	r.mu.Unlock()
	return nil
}

// lockedBuffer is an io.Writer the test may read while Serve writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestRequestsReadBeforeEOFAreAnswered: input that ends right after its
// requests (a script piping into cordis) still gets every answer, in order.
func TestRequestsReadBeforeEOFAreAnswered(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"session/list","params":{}}`
	var out lockedBuffer
	if err := acp.Serve(ctxT(t), strings.NewReader(in), &out, newFake(endTurn), acp.Options{}); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for line := range strings.Lines(out.String()) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%v: %q", err, line)
		}
		if m.ID != nil && m.Result != nil {
			ids = append(ids, string(m.ID))
		}
	}
	if strings.Join(ids, ",") != "1,2,3" {
		t.Fatalf("answered ids %v, want 1,2,3; output:\n%s", ids, out.String())
	}
}

// TestStartedRunsAfterTheFirstAnswer: Options.Started runs once the first
// answer is written and before the next request is handled.
func TestStartedRunsAfterTheFirstAnswer(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}` + "\n"
	var out lockedBuffer
	var atStart []string
	calls := 0
	started := func() { calls++; atStart = append(atStart, out.String()) }
	if err := acp.Serve(ctxT(t), strings.NewReader(in), &out, newFake(endTurn), acp.Options{Started: started}); err != nil {
		t.Fatal(err)
	}
	if calls != 1 {
		t.Fatalf("Started ran %d times, want once", calls)
	}
	if !strings.Contains(atStart[0], `"id":1,"result"`) || strings.Contains(atStart[0], `"id":2`) {
		t.Fatalf("Started saw %q, want the initialize answer and nothing after it", atStart[0])
	}
	if !strings.Contains(out.String(), `"id":2,"result":{"sessionId"`) {
		t.Fatalf("session/new not answered: %s", out.String())
	}
}

// TestServeEndsWhenContextEnds: ending ctx ends Serve even while it waits
// for input (the reader is closed), and Started still runs.
func TestServeEndsWhenContextEnds(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	started := make(chan struct{})
	opts := acp.Options{Started: func() { close(started) }}
	go func() { done <- acp.Serve(ctx, inR, io.Discard, newFake(endTurn), opts) }()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-ctxT(t).Done():
		t.Fatal("Serve still waiting for input after ctx ended")
	}
	select {
	case <-started:
	default:
		t.Fatal("Started did not run")
	}
}
