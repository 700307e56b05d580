package acptest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/sourcegraph/jsonrpc2"
)

// Editor is a scripted ACP client. Create one with Start (in-process) or
// StartProcess (a real binary); drive it with Call/Notify and the helpers;
// inspect what the agent sent with Frames and Updates.
type Editor struct {
	t      testing.TB // nil for an Editor made by Connect
	name   string     // names the transcript file
	report func(string)
	serve  func(*Request) // Options.Serve
	conn   *jsonrpc2.Conn
	str    *recordingStream
	cmd    *exec.Cmd // StartProcess only

	killed   atomic.Bool
	shutdown func()
	written  sync.Once // the transcript (CORDIS_ACP_TRANSCRIPT_DIR)

	mu      sync.Mutex
	updates []acp.SessionNotification
	calls   []Call
	// onUpdate checks each session/update as it arrives (ServeLikeZed).
	onUpdate func(acp.SessionNotification)

	// Handlers for the agent's reverse calls, unless Options.Serve is
	// set. nil handlers answer -32601. They run on their own goroutine,
	// so a handler may block (for example until the test cancels the
	// turn).
	OnPermission  func(context.Context, *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error)
	OnElicitation func(context.Context, *acp.CreateElicitationRequest) (*acp.CreateElicitationResponse, error)
	OnRequest     func(ctx context.Context, method string, params json.RawMessage) (any, error)
}

// Call records one reverse request the agent made.
type Call struct {
	Method string
	Params json.RawMessage
}

// Start serves newAgent in-process over pipes and connects an Editor to it.
func Start(t testing.TB, newAgent func(*acp.Client) acp.Agent) *Editor {
	t.Helper()
	agentIn, editorOut := io.Pipe()
	editorIn, agentOut := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- acp.Serve(ctx, agentIn, agentOut, newAgent, acp.Options{})
		agentOut.Close()
	}()
	e := connect(t, editorIn, editorOut)
	e.shutdown = sync.OnceFunc(func() {
		editorOut.Close()
		select {
		case <-served:
		case <-time.After(10 * time.Second):
			t.Errorf("acptest: agent did not stop after stdin closed")
		}
		cancel()
		e.conn.Close()
	})
	t.Cleanup(e.Close)
	return e
}

// StartProcess starts cmd (whose Stdin/Stdout must be unset) and connects
// an Editor to its stdio. Every stdout line must be a JSON-RPC frame; any
// other line fails the test.
func StartProcess(t testing.TB, cmd *exec.Cmd) *Editor {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	e := connect(t, stdout, stdin)
	e.cmd = cmd
	e.shutdown = sync.OnceFunc(func() {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil && !e.killed.Load() {
				t.Errorf("acptest: agent exited with %v after stdin closed", err)
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Errorf("acptest: agent did not exit within 10s of stdin closing")
		}
	})
	t.Cleanup(e.Close)
	return e
}

func connect(t testing.TB, r io.Reader, w io.WriteCloser) *Editor {
	report := func(msg string) { t.Error(msg) }
	e := newEditor(r, w, Options{Name: t.Name(), Problem: report})
	e.t = t
	return e
}

func newEditor(r io.Reader, w io.WriteCloser, opts Options, connOpts ...jsonrpc2.ConnOpt) *Editor {
	e := &Editor{name: opts.Name, report: opts.Problem, serve: opts.Serve}
	e.str = &recordingStream{r: bufio.NewReaderSize(r, 1<<20), w: w, report: opts.Problem, tap: opts.Tap, transcribe: os.Getenv(TranscriptDirEnv) != ""}
	e.conn = jsonrpc2.NewConn(context.Background(), e.str, e, append(connOpts, jsonrpc2.SetLogger(discardLogger{}))...)
	return e
}

// Close disconnects like an editor closing the agent's stdin and waits for
// the agent to stop (Serve to return, or the process to exit). Tests call
// it to check what the agent leaves behind; cleanup calls it otherwise.
// With CORDIS_ACP_TRANSCRIPT_DIR set, it then writes the transcript.
func (e *Editor) Close() {
	e.shutdown()
	e.written.Do(e.writeTranscript)
}

// TranscriptDirEnv names the directory where every Editor, on Close, writes
// its whole conversation to a new file: one JSON line per frame in wire
// order, {"from":"client"|"agent","message":<frame>}, or "raw" instead of
// "message" for a line that is not JSON. interop/validate.mjs checks the
// agent's frames against the official ACP schema.
const TranscriptDirEnv = "CORDIS_ACP_TRANSCRIPT_DIR"

var unsafeFileChars = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

func (e *Editor) writeTranscript() {
	dir := os.Getenv(TranscriptDirEnv)
	if dir == "" {
		return
	}
	// The agent has stopped; let the read loop take its last frames.
	select {
	case <-e.conn.DisconnectNotify():
	case <-time.After(5 * time.Second):
	}
	var buf []byte
	for _, entry := range e.str.transcript() {
		line, err := json.Marshal(entry)
		if err != nil {
			e.report(fmt.Sprintf("acptest: transcript: %v", err))
			return
		}
		buf = append(append(buf, line...), '\n')
	}
	name := unsafeFileChars.ReplaceAllString(e.name, "_")
	if len(name) > 100 {
		name = name[:100]
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.report(fmt.Sprintf("acptest: transcript: %v", err))
		return
	}
	f, err := os.CreateTemp(dir, name+"-*.jsonl")
	if err != nil {
		e.report(fmt.Sprintf("acptest: transcript: %v", err))
		return
	}
	if _, err := f.Write(buf); err != nil {
		e.report(fmt.Sprintf("acptest: transcript %s: %v", filepath.Base(f.Name()), err))
	}
	if err := f.Close(); err != nil {
		e.report(fmt.Sprintf("acptest: transcript %s: %v", filepath.Base(f.Name()), err))
	}
}

// Kill sends SIGKILL to the agent process (StartProcess only), as a crash
// test does; the exit is then not reported as a failure.
func (e *Editor) Kill() error {
	e.killed.Store(true)
	return e.cmd.Process.Kill()
}

// Handle implements jsonrpc2.Handler: notifications are recorded in order
// on the read goroutine (so they are all seen before a later response);
// requests go to Options.Serve on the read goroutine, or else are
// answered by the On* handlers on their own goroutine.
func (e *Editor) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	var params json.RawMessage
	if req.Params != nil {
		params = *req.Params
	}
	if req.Notif {
		if req.Method == acp.MethodSessionUpdate {
			var n acp.SessionNotification
			if err := json.Unmarshal(params, &n); err != nil {
				e.report(fmt.Sprintf("acptest: bad session/update %s: %v", params, err))
				return
			}
			e.mu.Lock()
			e.updates = append(e.updates, n)
			check := e.onUpdate
			e.mu.Unlock()
			if check != nil {
				check(n)
			}
		}
		return
	}
	e.mu.Lock()
	e.calls = append(e.calls, Call{Method: req.Method, Params: params})
	e.mu.Unlock()
	r := &Request{Method: req.Method, Params: params, ctx: ctx, conn: conn, id: req.ID}
	if e.serve != nil {
		e.serve(r)
		return
	}
	go func() { r.Reply(e.answer(ctx, req.Method, params)) }()
}

func (e *Editor) answer(ctx context.Context, method string, params json.RawMessage) (any, error) {
	if method == acp.MethodSessionRequestPermission && e.OnPermission != nil {
		var p acp.RequestPermissionRequest
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		return e.OnPermission(ctx, &p)
	}
	if method == acp.MethodElicitationCreate && e.OnElicitation != nil {
		var p acp.CreateElicitationRequest
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		return e.OnElicitation(ctx, &p)
	}
	if e.OnRequest != nil {
		return e.OnRequest(ctx, method, params)
	}
	return nil, &acp.Error{Code: acp.CodeMethodNotFound, Message: "acptest: no handler for " + method}
}

// Call sends a request and decodes its result.
func (e *Editor) Call(ctx context.Context, method string, params, result any) error {
	return e.conn.Call(ctx, method, params, result)
}

// Notify sends a notification.
func (e *Editor) Notify(ctx context.Context, method string, params any) error {
	return e.conn.Notify(ctx, method, params)
}

// WriteRaw writes one raw line (a newline is appended), for malformed-input
// tests.
func (e *Editor) WriteRaw(line string) error { return e.str.writeRaw([]byte(line + "\n")) }

// Frames returns every line the agent wrote so far, in order.
func (e *Editor) Frames() []json.RawMessage { return e.str.frames() }

// Updates returns the session/update notifications received so far for
// sessionID ("" for all), in arrival order.
func (e *Editor) Updates(sessionID string) []acp.SessionUpdate {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []acp.SessionUpdate
	for _, n := range e.updates {
		if sessionID == "" || n.SessionID == sessionID {
			out = append(out, n.Update)
		}
	}
	return out
}

// Calls returns the reverse requests the agent made, in order.
func (e *Editor) Calls() []Call {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Call(nil), e.calls...)
}

// Initialize performs the handshake with the given capabilities (an
// Editor of Start or StartProcess: a failure ends the test).
func (e *Editor) Initialize(ctx context.Context, caps acp.ClientCapabilities) *acp.InitializeResponse {
	e.t.Helper()
	var resp acp.InitializeResponse
	err := e.Call(ctx, acp.MethodInitialize, acp.InitializeRequest{
		ProtocolVersion:    acp.ProtocolVersion,
		ClientCapabilities: caps,
		ClientInfo:         &acp.Implementation{Name: "acptest", Version: "1"},
	}, &resp)
	if err != nil {
		e.t.Fatalf("initialize: %v", err)
	}
	return &resp
}

// NewSession creates a session in cwd (an Editor of Start or
// StartProcess: a failure ends the test).
func (e *Editor) NewSession(ctx context.Context, cwd string) *acp.NewSessionResponse {
	e.t.Helper()
	var resp acp.NewSessionResponse
	if err := e.Call(ctx, acp.MethodSessionNew, acp.NewSessionRequest{Cwd: cwd, MCPServers: []acp.MCPServer{}}, &resp); err != nil {
		e.t.Fatalf("session/new: %v", err)
	}
	return &resp
}

// Prompt sends a text prompt and returns the stop reason.
func (e *Editor) Prompt(ctx context.Context, sessionID, text string) (acp.StopReason, error) {
	var resp acp.PromptResponse
	err := e.Call(ctx, acp.MethodSessionPrompt, acp.PromptRequest{SessionID: sessionID, Prompt: []acp.ContentBlock{acp.TextBlock(text)}}, &resp)
	return resp.StopReason, err
}

// discardLogger drops jsonrpc2's own logs: they arrive after tests end.
type discardLogger struct{}

func (discardLogger) Printf(string, ...any) {}
