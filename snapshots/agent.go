package snapshots

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/acp/acptest"
	"github.com/sourcegraph/jsonrpc2"
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

// Observer sees the conversation as it happens (the replay tool prints
// it). Calls come from several goroutines but never concurrently.
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

// agentProc is one running `cordis acp` and the scripted editor
// (acptest) on its stdio.
type agentProc struct {
	n      int
	p      *player
	cmd    *exec.Cmd
	stderr *lockedWriter
	ed     *acptest.Editor

	// held is the during armed by the frame the tap just saw, for the
	// request Serve is about to receive. Both run on the editor's read
	// goroutine, one after the other, so it needs no lock.
	held *heldTurn
}

// heldTurn is a prompt's during whose request has arrived.
type heldTurn struct {
	during *DuringSpec
	done   chan struct{} // closed once the steps ran and the answer went
}

func (p *player) start() (*agentProc, error) {
	p.processes++
	a := &agentProc{n: p.processes, p: p, stderr: &lockedWriter{w: &bytes.Buffer{}}}
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
	a.cmd = cmd
	a.ed = acptest.Connect(stdout, stdin, acptest.Options{
		Name:    fmt.Sprintf("snapshot-%s-%d", p.sc.Name, a.n),
		Problem: func(msg string) { p.problem("%s", msg) },
		Tap:     a.tap,
		Serve:   a.serve,
	})
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

// frameHead is what the editor reads of a frame to act on it.
type frameHead struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
}

func (f *frameHead) isRequest() bool { return f.Method != "" && len(f.ID) > 0 }

// tap sees every frame on the wire. The agent's frames are recorded,
// shown to the observer and matched against the prompt's cancelWhen and
// during before they are dispatched.
func (a *agentProc) tap(f acptest.Frame) {
	p := a.p
	obs := p.opts.Observer
	if !f.FromAgent {
		if obs != nil {
			p.observe(func() { obs.Sent(a.n, f.Line) })
		}
		return
	}
	var msg frameHead
	json.Unmarshal(f.Line, &msg) // a JSON-RPC frame: acptest checked it
	p.mu.Lock()
	p.frames = append(p.frames, Frame{Process: a.n, Line: f.Line})
	cancel := p.cancelWhen != nil && p.cancelWhen.match(&msg)
	if cancel {
		p.cancelWhen, p.cancelFired = nil, true
	}
	var held *heldTurn
	if p.during != nil && p.during.When.match(&msg) {
		held = &heldTurn{during: p.during, done: p.duringDone}
		p.during, p.duringFired = nil, true
	}
	sessionID := p.cancelSession
	p.mu.Unlock()
	if obs != nil {
		p.observe(func() {
			p.pollLogs(obs)
			obs.Received(a.n, f.Line)
		})
	}
	if cancel {
		if err := a.ed.Notify(context.Background(), acp.MethodSessionCancel, map[string]any{"sessionId": sessionID}); err != nil {
			p.problem("sending session/cancel: %v", err)
		}
	}
	switch {
	case held != nil && msg.isRequest():
		a.held = held // Serve receives this request next
	case held != nil:
		p.problem("during.when matched a frame that is not a request of the agent, so nothing holds the turn: %s", truncate(string(f.Line), 300))
		close(held.done)
	}
}

func (m *FrameMatch) match(msg *frameHead) bool {
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

// serve answers the agent's requests in arrival order, as a real editor
// would; a held request and terminal/wait_for_exit (which blocks until the
// command ends) are answered from their own goroutines.
func (a *agentProc) serve(r *acptest.Request) {
	switch {
	case a.held != nil:
		held := a.held
		a.held = nil
		go a.hold(r, held)
	case r.Method == acp.MethodTerminalWaitForExit:
		go func() { r.Reply(a.answer(r)) }()
	default:
		r.Reply(a.answer(r))
	}
}

func (a *agentProc) answer(r *acptest.Request) (any, error) {
	switch {
	case r.Method == acp.MethodSessionRequestPermission:
		return a.p.permission(r.Params), nil
	case r.Method == acp.MethodElicitationCreate:
		return a.p.elicitation(r.Params), nil
	case strings.HasPrefix(r.Method, "fs/"):
		return acptest.ServeFile(r.Method, r.Params)
	case strings.HasPrefix(r.Method, "terminal/"):
		return a.p.terms.Serve(r.Method, r.Params)
	}
	return nil, acptest.MethodNotFound(r.Method)
}

// hold runs the steps of the held during while r, a request of the agent,
// waits for its answer; then it answers r.
func (a *agentProc) hold(r *acptest.Request, h *heldTurn) {
	defer close(h.done)
	defer func() { r.Reply(a.answer(r)) }()
	for i, st := range h.during.Steps {
		if err := a.p.duringStep(a, st); err != nil {
			a.p.problem("during step %d (holding %s): %v", i+1, r.Method, err)
			return
		}
	}
}

// call sends a request and waits for its answer.
func (a *agentProc) call(method string, params any) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	var result json.RawMessage
	err := a.ed.Call(ctx, method, params, &result)
	var rpcErr *jsonrpc2.Error
	switch {
	case err == nil:
		return result, nil
	case errors.Is(err, context.DeadlineExceeded):
		return nil, fmt.Errorf("%s: no answer within %s", method, callTimeout)
	case errors.Is(err, jsonrpc2.ErrClosed):
		return nil, fmt.Errorf("%s: the agent exited before answering", method)
	case errors.As(err, &rpcErr):
		return nil, fmt.Errorf("JSON-RPC error %d: %s", rpcErr.Code, rpcErr.Message)
	}
	return nil, fmt.Errorf("%s: %v", method, err)
}

// stop ends the process: closes stdin (or kills it) and waits for it to
// exit and for stdout to be drained.
func (a *agentProc) stop(kill bool) {
	if kill {
		a.cmd.Process.Kill()
	}
	a.ed.CloseWrite()
	select {
	case <-a.ed.Done():
	case <-time.After(exitTimeout):
		a.p.problem("agent process %d did not exit within %s of stdin closing", a.n, exitTimeout)
		a.cmd.Process.Kill()
		<-a.ed.Done()
	}
	err := a.cmd.Wait()
	if err != nil && !kill {
		a.p.problem("agent process %d exited with %v; stderr:\n%s", a.n, err, tail(a.stderrText(), 40))
	}
	a.p.terms.KillAll()
	a.ed.Close() // writes the wire transcript when CORDIS_ACP_TRANSCRIPT_DIR is set
	if err := a.ed.Err(); err != nil {
		a.p.problem("reading the agent's stdout: %v", err)
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
