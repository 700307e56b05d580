package snapshots

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/acp/acptest"
	"github.com/cordis-agent/cordis/llm/replay"
)

// player runs one scenario: the agent processes and the editor.
type player struct {
	sc         *Scenario
	opts       Options
	dirs       runDirs
	configPath string
	env        []string
	paths      *replay.PathReplacer // expands placeholders in mcpServers
	terms      *acptest.Terminals

	mu            sync.Mutex
	processes     int
	frames        []Frame
	problems      []string
	sessions      []string
	current       string // the latest session
	permissions   []string
	elicitations  []ElicitationAnswer
	cancelWhen    *FrameMatch
	cancelSession string
	cancelFired   bool
	// during is the armed during of the current prompt: the first
	// request matching during.When is held while its steps run, then
	// answered; duringDone is closed when that is over.
	during      *DuringSpec
	duringFired bool
	duringDone  chan struct{}
	cordisOut   [][]byte // the output of each cordis step

	omu        sync.Mutex       // serializes Observer calls
	logOffsets map[string]int64 // log file -> bytes already observed (omu)
}

// pollLogs hands the observer the session log lines written since the
// last poll (omu held).
func (p *player) pollLogs(obs Observer) {
	if p.logOffsets == nil {
		p.logOffsets = map[string]int64{}
	}
	dir := filepath.Join(p.dirs.state, "sessions")
	var files []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.HasSuffix(path, ".jsonl") && !strings.HasSuffix(path, "transcript.jsonl") {
			files = append(files, path)
		}
		return nil
	})
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil || int64(len(data)) <= p.logOffsets[f] {
			continue
		}
		chunk := data[p.logOffsets[f]:]
		end := strings.LastIndexByte(string(chunk), '\n')
		if end < 0 {
			continue
		}
		p.logOffsets[f] += int64(end + 1)
		rel, _ := filepath.Rel(dir, f)
		session, agent := strings.TrimSuffix(rel, ".jsonl"), ""
		if parts := strings.Split(filepath.ToSlash(rel), "/"); len(parts) == 3 {
			session, agent = parts[0], strings.TrimSuffix(parts[2], ".jsonl")
		}
		for _, line := range strings.Split(string(chunk[:end]), "\n") {
			if line != "" {
				obs.Logged(session, agent, []byte(line))
			}
		}
	}
}

func (p *player) problem(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.problems = append(p.problems, fmt.Sprintf(format, args...))
}

func (p *player) observe(f func()) {
	p.omu.Lock()
	defer p.omu.Unlock()
	f()
}

// play runs the manifest's steps; the first failing step ends the run.
func (p *player) play() {
	m := p.sc.Manifest
	a, err := p.start()
	if err != nil {
		p.problem("%v", err)
		return
	}
	defer func() { a.stop(false) }()
	caps := ClientSpec{FS: true, Terminal: true}
	if m.Client != nil {
		caps = *m.Client
	}
	for i, st := range m.Steps {
		if err := p.step(&a, st, caps); err != nil {
			p.problem("step %d: %v", i+1, err)
			return
		}
	}
}

func (p *player) sessionAt(n int) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n == 0 {
		if p.current == "" {
			return "", errors.New("no session yet")
		}
		return p.current, nil
	}
	if n > len(p.sessions) {
		return "", fmt.Errorf("no session %d (%d created)", n, len(p.sessions))
	}
	return p.sessions[n-1], nil
}

func (p *player) step(ap **agentProc, st Step, caps ClientSpec) error {
	a := *ap
	switch {
	case st.Initialize != nil:
		clientCaps := map[string]any{
			"fs":       map[string]bool{"readTextFile": caps.FS, "writeTextFile": caps.FS},
			"terminal": caps.Terminal,
		}
		if caps.Elicitation {
			clientCaps["elicitation"] = map[string]any{"form": map[string]any{}}
		}
		_, err := a.call("initialize", map[string]any{
			"protocolVersion":    1,
			"clientCapabilities": clientCaps,
			"clientInfo":         map[string]string{"name": "cordis-snapshots", "version": "1"},
		})
		return err
	case st.NewSession != nil:
		raw, err := a.call("session/new", map[string]any{"cwd": p.dirs.workspace, "mcpServers": p.mcpServers(st.NewSession.MCPServers)})
		if err != nil {
			return err
		}
		var resp struct {
			SessionID string `json:"sessionId"`
		}
		if err := json.Unmarshal(raw, &resp); err != nil || resp.SessionID == "" {
			return fmt.Errorf("session/new answered without a sessionId: %s", raw)
		}
		p.mu.Lock()
		p.sessions = append(p.sessions, resp.SessionID)
		p.current = resp.SessionID
		p.mu.Unlock()
		return nil
	case st.Prompt != nil:
		sid, err := p.sessionAt(st.Prompt.Session)
		if err != nil {
			return err
		}
		done := make(chan struct{})
		p.mu.Lock()
		p.permissions = append([]string(nil), st.Prompt.Permissions...)
		p.elicitations = append([]ElicitationAnswer(nil), st.Prompt.Elicitations...)
		p.cancelWhen, p.cancelSession, p.cancelFired = st.Prompt.CancelWhen, sid, false
		p.during, p.duringFired, p.duringDone = st.Prompt.During, false, done
		p.mu.Unlock()
		_, err = a.call("session/prompt", map[string]any{
			"sessionId": sid,
			"prompt":    []any{map[string]string{"type": "text", "text": st.Prompt.Text}},
		})
		p.mu.Lock()
		left, fired, held := p.permissions, p.cancelFired, p.duringFired
		leftForms := len(p.elicitations)
		p.permissions, p.elicitations, p.cancelWhen, p.during = nil, nil, nil, nil
		p.mu.Unlock()
		if held {
			// The turn may end before the held steps do (when one of them
			// cancels it); the next step starts after them.
			<-done
		}
		if err != nil {
			return err
		}
		if st.Prompt.During != nil && !held {
			return fmt.Errorf("the turn ended before the agent sent a request matching during.when %+v", st.Prompt.During.When)
		}
		if len(left) > 0 {
			return fmt.Errorf("the turn ended with permission answers left unused: %s", strings.Join(left, ", "))
		}
		if leftForms > 0 {
			return fmt.Errorf("the turn ended with %d elicitation answers left unused", leftForms)
		}
		if st.Prompt.CancelWhen != nil && !fired {
			return fmt.Errorf("the turn ended before anything matched cancelWhen %+v", *st.Prompt.CancelWhen)
		}
		return nil
	case st.SetMode != nil:
		sid, err := p.sessionAt(st.SetMode.Session)
		if err != nil {
			return err
		}
		_, err = a.call("session/set_mode", map[string]any{"sessionId": sid, "modeId": st.SetMode.Mode})
		return err
	case st.SetConfigOption != nil:
		sid, err := p.sessionAt(st.SetConfigOption.Session)
		if err != nil {
			return err
		}
		_, err = a.call("session/set_config_option", map[string]any{"sessionId": sid, "configId": st.SetConfigOption.ConfigID, "value": st.SetConfigOption.Value})
		return err
	case st.LoadSession != nil || st.ResumeSession != nil:
		reopen, method := st.LoadSession, "session/load"
		if reopen == nil {
			reopen, method = st.ResumeSession, "session/resume"
		}
		sid, err := p.sessionAt(reopen.Session)
		if err != nil {
			return err
		}
		if _, err := a.call(method, map[string]any{"sessionId": sid, "cwd": p.dirs.workspace, "mcpServers": p.mcpServers(reopen.MCPServers)}); err != nil {
			return err
		}
		p.mu.Lock()
		p.current = sid
		p.mu.Unlock()
		return nil
	case st.WaitFile != "":
		return p.waitFile(st.WaitFile)
	case st.Cordis != nil:
		return p.runCordis(st.Cordis)
	case st.Restart != nil:
		a.stop(st.Restart.Kill)
		next, err := p.start()
		if err != nil {
			return err
		}
		*ap = next
		return nil
	}
	return errors.New("empty step")
}

// waitFile waits until rel exists in the workspace, bounded by
// callTimeout: the file is a hook's trace, which no frame announces.
func (p *player) waitFile(rel string) error {
	path := filepath.Join(p.dirs.workspace, rel)
	deadline := time.Now().Add(callTimeout)
	for {
		if _, err := os.Stat(path); err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("waitFile: %s did not appear within %s", rel, callTimeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// runCordis runs the cordis binary as a user would in a terminal: in the
// workspace, with the agent's environment and args' placeholders
// expanded. Its stdout, then its stderr under a marker when there is
// any, is kept for expected/cordis-N.txt.
func (p *player) runCordis(args []string) error {
	expanded := make([]string, len(args))
	for i, a := range args {
		expanded[i] = p.paths.Expand(a)
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.opts.Binary, expanded...)
	cmd.Dir = p.dirs.workspace
	cmd.Env = p.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	out := stdout.Bytes()
	if stderr.Len() > 0 {
		out = append(append(out, "--- stderr ---\n"...), stderr.Bytes()...)
	}
	p.mu.Lock()
	p.cordisOut = append(p.cordisOut, out)
	p.mu.Unlock()
	if err != nil {
		return fmt.Errorf("cordis %s: %v\n%s", strings.Join(args, " "), err, truncate(string(out), 2000))
	}
	return nil
}

// duringStep runs one step of a prompt's during, while the held turn
// waits for the editor.
func (p *player) duringStep(a *agentProc, st Step) error {
	if st.Prompt == nil {
		return p.step(&a, st, ClientSpec{})
	}
	sid, err := p.sessionAt(st.Prompt.Session)
	if err != nil {
		return err
	}
	_, err = a.call("session/prompt", map[string]any{
		"sessionId": sid,
		"prompt":    []any{map[string]string{"type": "text", "text": st.Prompt.Text}},
	})
	return err
}

// mcpServers is the mcpServers parameter of session/new or session/load,
// with the run's placeholders expanded.
func (p *player) mcpServers(servers []MCPServer) []any {
	out := []any{}
	x := p.paths.Expand
	pairs := func(list []NameValue) []any {
		out := []any{}
		for _, nv := range list {
			out = append(out, map[string]string{"name": nv.Name, "value": x(nv.Value)})
		}
		return out
	}
	for _, sv := range servers {
		if sv.Type == "" {
			args := []string{}
			for _, a := range sv.Args {
				args = append(args, x(a))
			}
			out = append(out, map[string]any{"name": sv.Name, "command": x(sv.Command), "args": args, "env": pairs(sv.Env)})
			continue
		}
		out = append(out, map[string]any{"type": sv.Type, "name": sv.Name, "url": x(sv.URL), "headers": pairs(sv.Headers)})
	}
	return out
}

// permission answers session/request_permission from the turn's queue
// of option kinds.
func (p *player) permission(params json.RawMessage) any {
	var req acp.RequestPermissionRequest
	json.Unmarshal(params, &req)
	p.mu.Lock()
	var answer string
	if len(p.permissions) > 0 {
		answer, p.permissions = p.permissions[0], p.permissions[1:]
	}
	p.mu.Unlock()
	if answer == "" {
		p.problem("the agent asked for permission and the manifest has no answer left (answered cancelled): %s", truncate(string(params), 300))
		return acptest.Cancelled
	}
	if resp, ok := acptest.SelectKind(&req, answer); ok {
		return resp
	}
	p.problem("the permission request offers no option of kind %s (answered cancelled)", answer)
	return acptest.Cancelled
}

// elicitation answers elicitation/create from the turn's queue of
// answers.
func (p *player) elicitation(params json.RawMessage) any {
	p.mu.Lock()
	var answer *ElicitationAnswer
	if len(p.elicitations) > 0 {
		answer, p.elicitations = &p.elicitations[0], p.elicitations[1:]
	}
	p.mu.Unlock()
	if answer == nil {
		p.problem("the agent asked for input (elicitation/create) and the manifest has no answer left (answered cancel): %s", truncate(string(params), 300))
		return map[string]any{"action": acp.ElicitationCancel}
	}
	resp := map[string]any{"action": answer.Action}
	if answer.Action == acp.ElicitationAccept {
		resp["content"] = answer.Content
	}
	return resp
}
