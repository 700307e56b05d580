package acptest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"sync"
	"unicode/utf8"

	"github.com/cordis-agent/cordis/acp"
)

// Terminals serves terminal/* as an editor does: each terminal is a real
// process in its own process group, its output kept in memory (cut from
// the front, on a character boundary, at the request's outputByteLimit).
// A released terminal's id is unknown afterwards.
//
// Concurrency: safe for concurrent use; terminal/wait_for_exit blocks
// until the command ends, so serve it from its own goroutine.
type Terminals struct {
	// Env is the environment every command starts with; the request's
	// env is added to it.
	Env []string

	mu    sync.Mutex
	next  int
	byID  map[string]*terminal
	order []*terminal // every terminal started, for KillAll
}

type terminal struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once the command ended and its status is set

	mu        sync.Mutex
	out       bytes.Buffer
	limit     int
	truncated bool
	status    acp.TerminalExitStatus
}

func (t *terminal) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.out.Write(p)
	if t.limit > 0 && t.out.Len() > t.limit {
		b := t.out.Bytes()
		cut := len(b) - t.limit
		for cut < len(b) && !utf8.RuneStart(b[cut]) {
			cut++
		}
		rest := append([]byte(nil), b[cut:]...)
		t.out.Reset()
		t.out.Write(rest)
		t.truncated = true
	}
	return len(p), nil
}

// exitStatus is the status once the command ended, else nil (t.mu held).
func (t *terminal) exitStatus() *acp.TerminalExitStatus {
	select {
	case <-t.done:
		st := t.status
		return &st
	default:
		return nil
	}
}

// Serve answers one terminal/* request.
func (ts *Terminals) Serve(method string, params json.RawMessage) (any, error) {
	if method == acp.MethodTerminalCreate {
		var req acp.CreateTerminalRequest
		if err := json.Unmarshal(params, &req); err != nil {
			return nil, invalidParams(err)
		}
		return ts.create(&req)
	}
	var req acp.TerminalRequest
	if err := json.Unmarshal(params, &req); err != nil {
		return nil, invalidParams(err)
	}
	ts.mu.Lock()
	t := ts.byID[req.TerminalID]
	ts.mu.Unlock()
	if t == nil {
		return nil, &acp.Error{Code: acp.CodeInvalidParams, Message: "Invalid params: unknown terminal " + req.TerminalID}
	}
	switch method {
	case acp.MethodTerminalOutput:
		t.mu.Lock()
		defer t.mu.Unlock()
		return acp.TerminalOutputResponse{Output: t.out.String(), Truncated: t.truncated, ExitStatus: t.exitStatus()}, nil
	case acp.MethodTerminalWaitForExit:
		<-t.done
		t.mu.Lock()
		defer t.mu.Unlock()
		return t.exitStatus(), nil
	case acp.MethodTerminalKill:
		killGroup(t.cmd)
		return struct{}{}, nil
	case acp.MethodTerminalRelease:
		killGroup(t.cmd)
		<-t.done
		ts.mu.Lock()
		delete(ts.byID, req.TerminalID)
		ts.mu.Unlock()
		return struct{}{}, nil
	}
	return nil, MethodNotFound(method)
}

func (ts *Terminals) create(req *acp.CreateTerminalRequest) (any, error) {
	cmd := exec.Command(req.Command, req.Args...)
	cmd.Dir = req.Cwd
	cmd.Env = append([]string(nil), ts.Env...)
	for _, e := range req.Env {
		cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
	}
	t := &terminal{cmd: cmd, done: make(chan struct{})}
	if req.OutputByteLimit != nil {
		t.limit = *req.OutputByteLimit
	}
	cmd.Stdout, cmd.Stderr = t, t
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		return nil, &acp.Error{Code: acp.CodeInternalError, Message: "cannot start " + req.Command + ": " + err.Error()}
	}
	go func() {
		cmd.Wait()
		t.mu.Lock()
		t.status.ExitCode, t.status.Signal = exitStatus(cmd.ProcessState)
		t.mu.Unlock()
		close(t.done)
	}()
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.next++
	id := fmt.Sprintf("term-%d", ts.next)
	if ts.byID == nil {
		ts.byID = map[string]*terminal{}
	}
	ts.byID[id] = t
	ts.order = append(ts.order, t)
	return acp.CreateTerminalResponse{TerminalID: id}, nil
}

// KillAll kills every terminal still running and waits for each to end
// (the agent process ended, so nobody will release them).
func (ts *Terminals) KillAll() {
	ts.mu.Lock()
	all := append([]*terminal(nil), ts.order...)
	ts.mu.Unlock()
	for _, t := range all {
		killGroup(t.cmd)
		<-t.done
	}
}
