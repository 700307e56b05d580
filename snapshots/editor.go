package snapshots

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// callTimeout bounds how long the editor waits for an answer to one of its
// requests. It is a bound on a durable event (the answer), not a sleep:
// the agent normally answers in milliseconds.
const callTimeout = 60 * time.Second

// exitTimeout bounds how long the agent may take to exit after stdin
// closes.
const exitTimeout = 20 * time.Second

// Frame is one line the agent wrote to stdout.
type Frame struct {
	Process int // 1 for the first agent process, 2 after a restart, ...
	Line    []byte
}

// rpcMessage is the union of JSON-RPC frames.
type rpcMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// Observer sees the conversation as it happens (cordis replay prints it).
// Calls come from several goroutines but never concurrently.
type Observer interface {
	// Sent is a frame the editor wrote to the agent.
	Sent(process int, msg []byte)
	// Received is a frame the agent wrote.
	Received(process int, msg []byte)
	// Logged is a session log event, seen shortly before the frames
	// that follow it on stdout (the logs are polled as frames arrive).
	// agentID is "" for a session's own log.
	Logged(sessionID, agentID string, event []byte)
	// Done follows the last call.
	Done()
}

// agentProc is one running `cordis acp` and the editor side of its stdio.
type agentProc struct {
	n      int
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *lockedWriter
	p      *player

	wmu       sync.Mutex
	nextID    int
	stdinDone bool // the editor closed its side; late replies are dropped

	mu      sync.Mutex
	pending map[string]chan rpcMessage
	readErr error
	done    chan struct{} // closed when stdout reaches EOF

	// wire is every frame in both directions, in order, for the schema
	// check of CI (see writeTranscript); guarded by mu.
	wire []json.RawMessage
}

// transcriptEnv names the directory where every agent's wire transcript is
// written ({"from":"client"|"agent","message":...} per line), the format
// acp/acptest writes and interop/validate.mjs checks against the ACP schema.
const transcriptEnv = "CORDIS_ACP_TRANSCRIPT_DIR"

func (a *agentProc) logWire(from string, msg []byte) {
	line, err := json.Marshal(struct {
		From    string          `json:"from"`
		Message json.RawMessage `json:"message"`
	}{from, msg})
	if err != nil {
		return
	}
	a.mu.Lock()
	a.wire = append(a.wire, line)
	a.mu.Unlock()
}

// writeTranscript saves the wire transcript when transcriptEnv is set.
func (a *agentProc) writeTranscript() {
	dir := os.Getenv(transcriptEnv)
	if dir == "" {
		return
	}
	f, err := os.CreateTemp(dir, fmt.Sprintf("snapshot-%s-%d-*.jsonl", a.p.sc.Name, a.n))
	if err != nil {
		a.p.problem("writing the wire transcript: %v", err)
		return
	}
	defer f.Close()
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, l := range a.wire {
		f.Write(append(l, '\n'))
	}
}

func (p *player) start() (*agentProc, error) {
	p.processes++
	a := &agentProc{n: p.processes, p: p, pending: map[string]chan rpcMessage{}, done: make(chan struct{}), stderr: &lockedWriter{w: &bytes.Buffer{}}}
	cmd := exec.Command(p.opts.Binary, "acp", "--config", p.configPath, "--state-dir", p.dirs.state,
		"--log-level", "debug", "--log-file", filepath.Join(p.dirs.root, fmt.Sprintf("agent-%d.log", a.n)))
	cmd.Dir = p.opts.Repo
	cmd.Env = p.env
	cmd.Stderr = a.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", p.opts.Binary, err)
	}
	a.cmd, a.stdin = cmd, stdin
	go a.read(stdout)
	return a, nil
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func (a *agentProc) stderrText() string {
	a.stderr.mu.Lock()
	defer a.stderr.mu.Unlock()
	return a.stderr.w.(*bytes.Buffer).String()
}

// read consumes stdout: every line is recorded, must be a JSON-RPC frame,
// and is dispatched.
func (a *agentProc) read(stdout io.Reader) {
	defer close(a.done)
	r := bufio.NewReaderSize(stdout, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			a.handleLine(bytes.TrimSuffix(line, []byte("\n")))
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				a.mu.Lock()
				a.readErr = err
				a.mu.Unlock()
			}
			a.mu.Lock()
			for id, ch := range a.pending {
				close(ch)
				delete(a.pending, id)
			}
			a.mu.Unlock()
			return
		}
	}
}

func (a *agentProc) handleLine(line []byte) {
	p := a.p
	var msg rpcMessage
	if err := json.Unmarshal(line, &msg); err != nil || msg.JSONRPC != "2.0" || !json.Valid(line) {
		p.problem("the agent wrote a line to stdout that is not a JSON-RPC frame: %q", truncate(string(line), 300))
		return
	}
	a.logWire("agent", line)
	p.mu.Lock()
	p.frames = append(p.frames, Frame{Process: a.n, Line: append([]byte(nil), line...)})
	trigger := p.cancelWhen
	if trigger != nil && trigger.match(&msg) {
		p.cancelWhen = nil
		p.cancelFired = true
	} else {
		trigger = nil
	}
	during, duringDone := p.during, p.duringDone
	if during != nil && during.When.match(&msg) {
		p.during = nil
		p.duringFired = true
	} else {
		during = nil
	}
	obs := p.opts.Observer
	p.mu.Unlock()
	if obs != nil {
		p.observe(func() {
			p.pollLogs(obs)
			obs.Received(a.n, line)
		})
	}
	if trigger != nil {
		a.notify("session/cancel", map[string]any{"sessionId": p.cancelSession})
	}
	switch {
	case during != nil && msg.Method != "" && len(msg.ID) > 0:
		go a.hold(msg, during, duringDone) // answered once the during steps ran
	case during != nil:
		p.problem("during.when matched a frame that is not a request of the agent, so nothing holds the turn: %s", truncate(string(line), 300))
		close(duringDone)
	case msg.Method == "terminal/wait_for_exit" && len(msg.ID) > 0:
		go a.answer(msg) // blocks until the command exits or is killed
	case msg.Method != "" && len(msg.ID) > 0:
		a.answer(msg) // in arrival order
	case msg.Method != "":
		// A notification: recorded above.
	case len(msg.ID) > 0:
		a.mu.Lock()
		ch := a.pending[string(msg.ID)]
		delete(a.pending, string(msg.ID))
		a.mu.Unlock()
		if ch == nil {
			p.problem("the agent answered a request the editor did not make: %s", truncate(string(line), 300))
			return
		}
		ch <- msg
	}
}

func (m *FrameMatch) match(msg *rpcMessage) bool {
	if m.Method != "" && msg.Method != m.Method {
		return false
	}
	if m.Update == "" && m.Status == "" {
		return true
	}
	var params struct {
		Update struct {
			SessionUpdate string `json:"sessionUpdate"`
			Status        string `json:"status"`
		} `json:"update"`
	}
	if json.Unmarshal(msg.Params, &params) != nil {
		return false
	}
	return (m.Update == "" || params.Update.SessionUpdate == m.Update) && (m.Status == "" || params.Update.Status == m.Status)
}

func (a *agentProc) write(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	a.wmu.Lock()
	defer a.wmu.Unlock()
	if a.stdinDone {
		// A reply to a request the agent made before the editor hung up
		// (a terminal/wait_for_exit answered once the terminal is killed).
		return nil
	}
	if obs := a.p.opts.Observer; obs != nil {
		a.p.observe(func() { obs.Sent(a.n, data) })
	}
	a.logWire("client", data)
	_, err = a.stdin.Write(append(data, '\n'))
	return err
}

func (a *agentProc) notify(method string, params any) {
	if err := a.write(map[string]any{"jsonrpc": "2.0", "method": method, "params": params}); err != nil {
		a.p.problem("sending %s: %v", method, err)
	}
}

// call sends a request and waits for its answer.
func (a *agentProc) call(method string, params any) (json.RawMessage, error) {
	a.wmu.Lock()
	a.nextID++
	id := a.nextID
	a.wmu.Unlock()
	key := fmt.Sprint(id)
	ch := make(chan rpcMessage, 1)
	a.mu.Lock()
	a.pending[key] = ch
	a.mu.Unlock()
	if err := a.write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, fmt.Errorf("%s: %v", method, err)
	}
	timer := time.NewTimer(callTimeout)
	defer timer.Stop()
	select {
	case msg, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("%s: the agent exited before answering", method)
		}
		if msg.Error != nil {
			return nil, msg.Error
		}
		return msg.Result, nil
	case <-timer.C:
		return nil, fmt.Errorf("%s: no answer within %s", method, callTimeout)
	}
}

// reply answers a reverse request.
func (a *agentProc) reply(id json.RawMessage, result any, rerr *rpcError) {
	msg := map[string]any{"jsonrpc": "2.0", "id": id}
	if rerr != nil {
		msg["error"] = rerr
	} else {
		msg["result"] = result
	}
	if err := a.write(msg); err != nil && !a.exited() {
		a.p.problem("answering a request: %v", err)
	}
}

func (a *agentProc) exited() bool {
	select {
	case <-a.done:
		return true
	default:
		return false
	}
}

// stop ends the process: closes stdin (or kills it) and waits for it to
// exit and for stdout to be drained.
func (a *agentProc) stop(kill bool) {
	if kill {
		a.cmd.Process.Kill()
	}
	a.wmu.Lock()
	a.stdinDone = true
	a.stdin.Close()
	a.wmu.Unlock()
	select {
	case <-a.done:
	case <-time.After(exitTimeout):
		a.p.problem("agent process %d did not exit within %s of stdin closing", a.n, exitTimeout)
		a.cmd.Process.Kill()
		<-a.done
	}
	err := a.cmd.Wait()
	if err != nil && !kill {
		a.p.problem("agent process %d exited with %v; stderr:\n%s", a.n, err, tail(a.stderrText(), 40))
	}
	a.p.terms.killAll()
	a.writeTranscript()
	if a.readErr != nil {
		a.p.problem("reading the agent's stdout: %v", a.readErr)
	}
}

func tail(s string, lines int) string {
	parts := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(parts) > lines {
		parts = parts[len(parts)-lines:]
	}
	return strings.Join(parts, "\n")
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// answer serves a reverse request as a real editor would.
func (a *agentProc) answer(msg rpcMessage) {
	p := a.p
	var result any
	var rerr *rpcError
	switch msg.Method {
	case "session/request_permission":
		result = p.permission(msg.Params)
	case "fs/read_text_file":
		result, rerr = readTextFile(msg.Params)
	case "fs/write_text_file":
		result, rerr = writeTextFile(msg.Params)
	case "terminal/create", "terminal/output", "terminal/wait_for_exit", "terminal/kill", "terminal/release":
		result, rerr = p.terms.handle(msg.Method, msg.Params)
	default:
		rerr = &rpcError{Code: -32601, Message: "Method not found: " + msg.Method}
	}
	if rerr == nil && result == nil {
		result = struct{}{}
	}
	a.reply(msg.ID, result, rerr)
}

func readTextFile(params json.RawMessage) (any, *rpcError) {
	var req struct {
		Path  string `json:"path"`
		Line  *int   `json:"line"`
		Limit *int   `json:"limit"`
	}
	if err := json.Unmarshal(params, &req); err != nil {
		return nil, &rpcError{Code: -32602, Message: "Invalid params: " + err.Error()}
	}
	data, err := os.ReadFile(req.Path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &rpcError{Code: -32002, Message: "Resource not found: " + req.Path}
		}
		return nil, &rpcError{Code: -32603, Message: err.Error()}
	}
	content := string(data)
	if req.Line != nil || req.Limit != nil {
		lines := strings.SplitAfter(content, "\n")
		start := 0
		if req.Line != nil && *req.Line > 1 {
			start = min(*req.Line-1, len(lines))
		}
		end := len(lines)
		if req.Limit != nil && start+*req.Limit < end {
			end = start + *req.Limit
		}
		content = strings.Join(lines[start:end], "")
	}
	return map[string]string{"content": content}, nil
}

func writeTextFile(params json.RawMessage) (any, *rpcError) {
	var req struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	if err := json.Unmarshal(params, &req); err != nil {
		return nil, &rpcError{Code: -32602, Message: "Invalid params: " + err.Error()}
	}
	if err := os.MkdirAll(filepath.Dir(req.Path), 0o755); err != nil {
		return nil, &rpcError{Code: -32603, Message: err.Error()}
	}
	if err := os.WriteFile(req.Path, []byte(req.Content), 0o644); err != nil {
		return nil, &rpcError{Code: -32603, Message: err.Error()}
	}
	return nil, nil
}
