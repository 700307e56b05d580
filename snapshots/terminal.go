package snapshots

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"sync"
	"unicode/utf8"
)

// terminals are the editor's terminals (terminal/*): real processes, as an
// editor would run them, with their output kept in memory.
type terminals struct {
	env []string

	mu    sync.Mutex
	next  int
	byID  map[string]*terminal
	order []*terminal
}

type terminal struct {
	cmd  *exec.Cmd
	done chan struct{}

	mu        sync.Mutex
	out       bytes.Buffer
	limit     int
	truncated bool
	exitCode  *int
	signal    *string
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

func (ts *terminals) handle(method string, params json.RawMessage) (any, *rpcError) {
	var req struct {
		TerminalID      string `json:"terminalId"`
		Command         string `json:"command"`
		Args            []string
		Env             []struct{ Name, Value string }
		Cwd             string `json:"cwd"`
		OutputByteLimit *int   `json:"outputByteLimit"`
	}
	if err := json.Unmarshal(params, &req); err != nil {
		return nil, &rpcError{Code: -32602, Message: "Invalid params: " + err.Error()}
	}
	if method == "terminal/create" {
		return ts.create(req.Command, req.Args, req.Env, req.Cwd, req.OutputByteLimit)
	}
	ts.mu.Lock()
	t := ts.byID[req.TerminalID]
	ts.mu.Unlock()
	if t == nil {
		return nil, &rpcError{Code: -32602, Message: "Invalid params: unknown terminal " + req.TerminalID}
	}
	switch method {
	case "terminal/output":
		t.mu.Lock()
		defer t.mu.Unlock()
		out := map[string]any{"output": t.out.String(), "truncated": t.truncated}
		if status := t.status(); status != nil {
			out["exitStatus"] = status
		}
		return out, nil
	case "terminal/wait_for_exit":
		<-t.done
		t.mu.Lock()
		defer t.mu.Unlock()
		return t.status(), nil
	case "terminal/kill":
		killGroup(t.cmd)
		return nil, nil
	case "terminal/release":
		killGroup(t.cmd)
		<-t.done
		ts.mu.Lock()
		delete(ts.byID, req.TerminalID)
		ts.mu.Unlock()
		return nil, nil
	}
	return nil, &rpcError{Code: -32601, Message: "Method not found: " + method}
}

// status is the exit status once the command ended (t.mu held).
func (t *terminal) status() map[string]any {
	select {
	case <-t.done:
	default:
		return nil
	}
	st := map[string]any{}
	if t.exitCode != nil {
		st["exitCode"] = *t.exitCode
	}
	if t.signal != nil {
		st["signal"] = *t.signal
	}
	return st
}

func (ts *terminals) create(command string, args []string, env []struct{ Name, Value string }, cwd string, limit *int) (any, *rpcError) {
	cmd := exec.Command(command, args...)
	cmd.Dir = cwd
	cmd.Env = append([]string(nil), ts.env...)
	for _, e := range env {
		cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
	}
	t := &terminal{cmd: cmd, done: make(chan struct{})}
	if limit != nil {
		t.limit = *limit
	}
	cmd.Stdout, cmd.Stderr = t, t
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		return nil, &rpcError{Code: -32603, Message: "cannot start " + command + ": " + err.Error()}
	}
	go func() {
		cmd.Wait()
		t.mu.Lock()
		code, sig := exitStatus(cmd.ProcessState)
		t.exitCode, t.signal = code, sig
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
	return map[string]string{"terminalId": id}, nil
}

// killAll kills every terminal still running (the agent process ended).
func (ts *terminals) killAll() {
	ts.mu.Lock()
	all := append([]*terminal(nil), ts.order...)
	ts.mu.Unlock()
	for _, t := range all {
		killGroup(t.cmd)
		<-t.done
	}
}
