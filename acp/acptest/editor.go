package acptest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
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
	t    testing.TB
	conn *jsonrpc2.Conn
	str  *recordingStream
	cmd  *exec.Cmd // StartProcess only

	killed   atomic.Bool
	shutdown func()
	written  sync.Once // the transcript (CORDIS_ACP_TRANSCRIPT_DIR)

	mu      sync.Mutex
	updates []acp.SessionNotification
	calls   []Call

	// Handlers for the agent's reverse calls. nil handlers answer
	// -32601. They run on their own goroutine, so a handler may block
	// (for example until the test cancels the turn).
	OnPermission func(context.Context, *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error)
	OnRequest    func(ctx context.Context, method string, params json.RawMessage) (any, error)
}

// Call records one reverse request the agent made.
type Call struct {
	Method string
	Params json.RawMessage
}

// Options configure an Editor.
type Options struct {
	// Capabilities advertised by Initialize.
	Capabilities acp.ClientCapabilities
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
	e := &Editor{t: t}
	e.str = &recordingStream{r: bufio.NewReaderSize(r, 1<<20), w: w, t: t, transcribe: os.Getenv(TranscriptDirEnv) != ""}
	e.conn = jsonrpc2.NewConn(context.Background(), e.str, e, jsonrpc2.SetLogger(discardLogger{}))
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
			e.t.Errorf("acptest: transcript: %v", err)
			return
		}
		buf = append(append(buf, line...), '\n')
	}
	name := unsafeFileChars.ReplaceAllString(e.t.Name(), "_")
	if len(name) > 100 {
		name = name[:100]
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.t.Errorf("acptest: transcript: %v", err)
		return
	}
	f, err := os.CreateTemp(dir, name+"-*.jsonl")
	if err != nil {
		e.t.Errorf("acptest: transcript: %v", err)
		return
	}
	if _, err := f.Write(buf); err != nil {
		e.t.Errorf("acptest: transcript %s: %v", filepath.Base(f.Name()), err)
	}
	if err := f.Close(); err != nil {
		e.t.Errorf("acptest: transcript %s: %v", filepath.Base(f.Name()), err)
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
// requests are answered on their own goroutine.
func (e *Editor) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	var params json.RawMessage
	if req.Params != nil {
		params = *req.Params
	}
	if req.Notif {
		if req.Method == acp.MethodSessionUpdate {
			var n acp.SessionNotification
			if err := json.Unmarshal(params, &n); err != nil {
				e.t.Errorf("acptest: bad session/update %s: %v", params, err)
				return
			}
			e.mu.Lock()
			e.updates = append(e.updates, n)
			e.mu.Unlock()
		}
		return
	}
	e.mu.Lock()
	e.calls = append(e.calls, Call{Method: req.Method, Params: params})
	e.mu.Unlock()
	go func() {
		result, err := e.answer(ctx, req.Method, params)
		if err != nil {
			rpcErr := &jsonrpc2.Error{Code: acp.CodeInternalError, Message: err.Error()}
			if ae, ok := err.(*acp.Error); ok {
				rpcErr.Code, rpcErr.Message = ae.Code, ae.Message
			}
			conn.ReplyWithError(ctx, req.ID, rpcErr)
			return
		}
		conn.Reply(ctx, req.ID, result)
	}()
}

func (e *Editor) answer(ctx context.Context, method string, params json.RawMessage) (any, error) {
	if method == acp.MethodSessionRequestPermission && e.OnPermission != nil {
		var p acp.RequestPermissionRequest
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		return e.OnPermission(ctx, &p)
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

// Initialize performs the handshake with the given capabilities.
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

// NewSession creates a session in cwd.
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

// recordingStream is the editor side's framing: it records every inbound
// line and fails the test on anything that is not a JSON-RPC message.
type recordingStream struct {
	t  testing.TB
	r  *bufio.Reader
	wm sync.Mutex
	w  io.WriteCloser

	mu    sync.Mutex
	lines []json.RawMessage

	transcribe bool              // CORDIS_ACP_TRANSCRIPT_DIR is set
	wire       []transcriptEntry // both directions, in order (guarded by mu)
}

// transcriptEntry is one line of a transcript file.
type transcriptEntry struct {
	From    string          `json:"from"` // "client" or "agent"
	Message json.RawMessage `json:"message,omitempty"`
	Raw     *string         `json:"raw,omitempty"` // a line that is not JSON
}

// note appends one line to the transcript; mu must be held.
func (s *recordingStream) note(from string, line []byte) {
	if !s.transcribe {
		return
	}
	entry := transcriptEntry{From: from}
	if json.Valid(line) {
		entry.Message = append(json.RawMessage(nil), line...)
	} else {
		raw := string(line)
		entry.Raw = &raw
	}
	s.wire = append(s.wire, entry)
}

func (s *recordingStream) transcript() []transcriptEntry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]transcriptEntry(nil), s.wire...)
}

func (s *recordingStream) ReadObject(v any) error {
	for {
		line, err := s.r.ReadBytes('\n')
		if len(line) > 0 {
			trimmed := line[:len(line)-1]
			if err != nil {
				trimmed = line
			}
			var probe struct {
				JSONRPC string `json:"jsonrpc"`
			}
			if jerr := json.Unmarshal(trimmed, &probe); jerr != nil || probe.JSONRPC != "2.0" {
				s.mu.Lock()
				s.note("agent", trimmed)
				s.mu.Unlock()
				s.t.Errorf("acptest: agent wrote a non-JSON-RPC line to stdout: %q", truncate(string(trimmed), 200))
			} else {
				s.mu.Lock()
				s.lines = append(s.lines, append(json.RawMessage(nil), trimmed...))
				s.note("agent", trimmed)
				s.mu.Unlock()
				if isErrorWithNullID(trimmed) {
					// An answer to a raw malformed line: recorded; jsonrpc2
					// would mistake id null for its own request 0.
				} else if uerr := json.Unmarshal(trimmed, v); uerr == nil {
					return nil
				} else {
					s.t.Errorf("acptest: undecodable frame %q: %v", truncate(string(trimmed), 200), uerr)
				}
			}
		}
		if err != nil {
			return err
		}
	}
}

func isErrorWithNullID(line []byte) bool {
	var m struct {
		ID    json.RawMessage `json:"id"`
		Error json.RawMessage `json:"error"`
	}
	return json.Unmarshal(line, &m) == nil && string(m.ID) == "null" && len(m.Error) > 0
}

func (s *recordingStream) WriteObject(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.writeRaw(append(data, '\n'))
}

func (s *recordingStream) writeRaw(b []byte) error {
	s.wm.Lock()
	defer s.wm.Unlock()
	if s.transcribe {
		s.mu.Lock()
		for _, line := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
			s.note("client", line)
		}
		s.mu.Unlock()
	}
	_, err := s.w.Write(b)
	return err
}

func (s *recordingStream) Close() error { return s.w.Close() }

func (s *recordingStream) frames() []json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]json.RawMessage(nil), s.lines...)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// discardLogger drops jsonrpc2's own logs: they arrive after tests end.
type discardLogger struct{}

func (discardLogger) Printf(string, ...any) {}
