package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/acp/acptest"
	"github.com/cordis-agent/cordis/sessionlog"
)

// Process faults against the real binary: stdin closed or SIGTERM while a
// Bash command or a hook runs, an editor that never answers a permission
// request, hooks whose grandchildren hold the output pipe.

// proc is a cordis process under test with its directories.
type proc struct {
	e      *acptest.Editor
	cmd    *exec.Cmd
	stderr *syncBuffer
	home   string
	state  string
	work   string
}

type procOpts struct {
	config string   // the user's cordis.yml ("": none, the embedded default)
	env    []string // added to the isolated environment (later entries win)
	args   []string
}

// bypassConfig runs the agent in bypassPermissions mode against the fake
// model; extra is appended (plugin entries).
func bypassConfig(extra string) string {
	return "- id: agent\n  name: agent\n  config: {defaultMode: bypassPermissions}\n- id: llm\n  name: llm/anthropic\n  config: {model: claude-sonnet-4-5, maxRetries: -1}\n" + extra
}

// claudeHooksEntry is a bridge/claude entry running the hooks file path.
func claudeHooksEntry(path string) string {
	return "- id: claude-hooks\n  name: bridge/claude\n  config: {path: " + strconv.Quote(path) + "}\n"
}

// writeUserConfig writes the user's own cordis.yml (XDG_CONFIG_HOME is
// home/.config in isolatedEnv); a cordis.yml in the working directory would
// be the project's, which is not read until trusted.
func writeUserConfig(t *testing.T, home, config string) {
	t.Helper()
	dir := filepath.Join(home, ".config", "cordis")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cordis.yml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
}

// startHook, when set, prepares a proc's directories before it starts.
var startHook func(p *proc)

func startProc(t *testing.T, modelURL string, o procOpts) *proc {
	t.Helper()
	p := &proc{state: t.TempDir(), stderr: &syncBuffer{}}
	p.work, _ = filepath.EvalSymlinks(t.TempDir())
	args := append([]string{"acp", "--state-dir", p.state, "--log-level", "debug"}, o.args...)
	p.cmd = exec.Command(binary, args...)
	p.cmd.Env = append(isolatedEnv(t, modelURL), o.env...)
	for _, kv := range p.cmd.Env {
		if h, ok := strings.CutPrefix(kv, "HOME="); ok {
			p.home = h
		}
	}
	if o.config != "" {
		writeUserConfig(t, p.home, o.config)
	}
	if startHook != nil {
		startHook(p)
	}
	p.cmd.Dir = p.work
	p.cmd.Stderr = p.stderr
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("agent stderr:\n%s", p.stderr.String())
		}
	})
	p.e = acptest.StartProcess(t, p.cmd)
	return p
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitPids waits until path holds n pids (one per line) and returns them;
// they are killed at cleanup whatever the test found.
func waitPids(t *testing.T, path string, n int) []int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		data, _ := os.ReadFile(path)
		var pids []int
		for _, f := range strings.Fields(string(data)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
		if len(pids) >= n && bytes.HasSuffix(data, []byte("\n")) {
			t.Cleanup(func() {
				for _, pid := range pids {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			return pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never held %d pids (has %q)", path, n, data)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// alive reports whether pid runs (a zombie has ended).
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 || i+2 >= len(data) {
		return false
	}
	state := data[i+2]
	return state != 'Z' && state != 'X'
}

// waitGone waits up to d for every pid to end and reports those left.
func waitGone(pids []int, d time.Duration) []int {
	deadline := time.Now().Add(d)
	for {
		var left []int
		for _, pid := range pids {
			if alive(pid) {
				left = append(left, pid)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitExited waits for the agent process to end (it stays a zombie until
// acptest reaps it on Close).
func waitExited(t *testing.T, pid int, d time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for alive(pid) {
		if time.Since(start) > d {
			t.Fatalf("the agent (pid %d) still runs %s later", pid, d)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return time.Since(start)
}

// writeHooks writes a Claude hooks file running command on event.
func writeHooks(t *testing.T, dir string, timeout float64, events map[string]string) string {
	t.Helper()
	hooks := map[string]any{}
	for event, command := range events {
		h := map[string]any{"type": "command", "command": command}
		if timeout > 0 {
			h["timeout"] = timeout
		}
		hooks[event] = []any{map[string]any{"matcher": "", "hooks": []any{h}}}
	}
	data, _ := json.MarshalIndent(map[string]any{"hooks": hooks}, "", "  ")
	path := filepath.Join(dir, "hooks.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The editor goes away (stdin closed, or SIGTERM) while a Bash command or
// a hook is running: the agent exits 0 promptly and the subprocess and its
// children are gone with it.
func TestAgentExitTakesSubprocessesWithIt(t *testing.T) {
	for _, sleeper := range []string{"bash", "hook"} {
		for _, trigger := range []string{"stdin closed", "SIGTERM", "SIGINT", "SIGHUP"} {
			t.Run(sleeper+"/"+trigger, func(t *testing.T) {
				t.Parallel()
				ctx := testCtx(t)
				dir := t.TempDir()
				pidFile := filepath.Join(dir, "pids")
				// The shell and a background child: both must go.
				script := "echo $$ > " + pidFile + ".tmp; sleep 100 & echo $! >> " + pidFile + ".tmp; mv " + pidFile + ".tmp " + pidFile + "; wait"
				var model *fakeModel
				var config string
				if sleeper == "bash" {
					model = newFakeModel(t, toolReply("toolu_1", "Bash", `{"command":`+strconv.Quote(script)+`}`))
					config = bypassConfig("")
				} else {
					model = newFakeModel(t)
					config = bypassConfig(claudeHooksEntry(writeHooks(t, dir, 600, map[string]string{"UserPromptSubmit": script})))
				}
				p := startProc(t, model.srv.URL, procOpts{config: config})
				p.e.Initialize(ctx, acp.ClientCapabilities{})
				sid := p.e.NewSession(ctx, p.work).SessionID
				go p.e.Prompt(ctx, sid, "sleep for a while")
				pids := waitPids(t, pidFile, 2)

				start := time.Now()
				if sig, ok := map[string]syscall.Signal{"SIGTERM": syscall.SIGTERM, "SIGINT": syscall.SIGINT, "SIGHUP": syscall.SIGHUP}[trigger]; ok {
					p.cmd.Process.Signal(sig)
					waitExited(t, p.cmd.Process.Pid, 10*time.Second)
				}
				p.e.Close() // closes stdin; fails the test unless the agent exits 0 within 10s
				took := time.Since(start)
				t.Logf("the agent exited %s after %s", took.Round(time.Millisecond), trigger)
				if took > 7*time.Second {
					t.Errorf("the agent took %s to exit after %s", took, trigger)
				}
				if code := p.cmd.ProcessState.ExitCode(); code != 0 {
					t.Errorf("exit code %d", code)
				}
				if left := waitGone(pids, 2*time.Second); len(left) > 0 {
					t.Fatalf("%s processes %v outlived the agent", sleeper, left)
				}
				// The session log is consistent: the turn is closed.
				events, _, err := sessionlog.Read(sessionlog.Path(p.state, sid))
				if err != nil {
					t.Fatal(err)
				}
				ended := false
				for _, ev := range events {
					ended = ended || ev.Type == sessionlog.TypeTurnEnd
				}
				if !ended {
					t.Errorf("no turn/end in the session log after %s", trigger)
				}
			})
		}
	}
}

// An editor that never answers a permission request: session/cancel still
// ends the turn `cancelled`, nothing runs, a late answer is ignored and the
// session goes on.
func TestCancelWhilePermissionUnanswered(t *testing.T) {
	ctx := testCtx(t)
	model := newFakeModel(t, toolReply("toolu_1", "Write", `{"file_path":"never.txt","content":"x"}`), textReply("Still here."))
	p := startProc(t, model.srv.URL, procOpts{config: "- id: llm\n  name: llm/anthropic\n  config: {model: claude-sonnet-4-5}\n"})
	asked := make(chan struct{}, 1)
	release := make(chan struct{})
	p.e.OnPermission = func(ctx context.Context, r *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		asked <- struct{}{}
		<-release // never answers until the test is over
		return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: acp.PermAllowOnce}}, nil
	}
	p.e.Initialize(ctx, acp.ClientCapabilities{})
	sid := p.e.NewSession(ctx, p.work).SessionID
	done := make(chan acp.StopReason, 1)
	go func() { stop, _ := p.e.Prompt(ctx, sid, "write a file"); done <- stop }()
	select {
	case <-asked:
	case <-time.After(20 * time.Second):
		t.Fatal("no permission request")
	}
	p.e.Notify(ctx, acp.MethodSessionCancel, acp.CancelNotification{SessionID: sid})
	select {
	case stop := <-done:
		if stop != acp.StopCancelled {
			t.Fatalf("stop = %q, want cancelled", stop)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the turn did not end within 5s of session/cancel")
	}
	close(release) // the late answer
	stop, err := p.e.Prompt(ctx, sid, "are you there?")
	if err != nil || stop != acp.StopEndTurn {
		t.Fatalf("next prompt = %q, %v", stop, err)
	}
	if _, err := os.Stat(filepath.Join(p.work, "never.txt")); err == nil {
		t.Fatal("the unanswered Write ran")
	}
	reqs := model.Requests()
	if len(reqs) != 2 || !strings.Contains(reqs[1], "toolu_1") {
		t.Fatalf("the next request does not carry the cancelled call's result: %v", reqs)
	}
}

// A hook whose grandchild keeps the output pipe open does not hold the
// turn beyond the hook's timeout (plus the kill grace), and the grandchild
// is killed with it.
func TestHookGrandchildHoldingThePipe(t *testing.T) {
	cases := []struct {
		name, command string
		max           time.Duration
	}{
		// The shell exits at once; the background sleep holds stdout.
		{"shell exits, child holds stdout", "sleep 100 & echo $! > PIDS; echo context-from-hook", 3 * time.Second},
		// The shell waits for the child: the 1 s timeout must fire.
		{"shell waits on the child", "sleep 100 & echo $! > PIDS; wait", 5 * time.Second},
		// The child holds stdout and stderr and ignores SIGTERM.
		{"child ignores SIGTERM", "sh -c 'trap \"\" TERM; sleep 100' & echo $! > PIDS; wait", 6 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := testCtx(t)
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "pids")
			hooks := writeHooks(t, dir, 1, map[string]string{"UserPromptSubmit": strings.ReplaceAll(c.command, "PIDS", pidFile)})
			model := newFakeModel(t, textReply("Answered."))
			p := startProc(t, model.srv.URL, procOpts{config: bypassConfig(claudeHooksEntry(hooks))})
			p.e.Initialize(ctx, acp.ClientCapabilities{})
			sid := p.e.NewSession(ctx, p.work).SessionID
			start := time.Now()
			stop, err := p.e.Prompt(ctx, sid, "hello")
			took := time.Since(start)
			if err != nil || stop != acp.StopEndTurn {
				t.Fatalf("prompt = %q, %v", stop, err)
			}
			t.Logf("the turn took %s", took.Round(time.Millisecond))
			if took > c.max {
				t.Errorf("the turn took %s, want at most %s (hook timeout 1s)", took, c.max)
			}
			pids := waitPids(t, pidFile, 1)
			if left := waitGone(pids, 2*time.Second); len(left) > 0 {
				t.Errorf("the hook's grandchild %v outlived the hook", left)
			}
		})
	}
}

// ---- Bad input battery ----

// rawClient tracks answers to raw lines written through an acptest editor.
type rawClient struct {
	t *testing.T
	e *acptest.Editor
	n int
}

// send writes line and returns the first frame answering id (a string id).
func (c *rawClient) send(id, line string) map[string]json.RawMessage {
	c.t.Helper()
	if err := c.e.WriteRaw(line); err != nil {
		c.t.Fatalf("write: %v", err)
	}
	return c.await(id, 1)[0]
}

// await waits for n frames answering id.
func (c *rawClient) await(id string, n int) []map[string]json.RawMessage {
	c.t.Helper()
	want, _ := json.Marshal(id)
	deadline := time.Now().Add(20 * time.Second)
	for {
		var got []map[string]json.RawMessage
		for _, f := range c.e.Frames() {
			var m map[string]json.RawMessage
			if json.Unmarshal(f, &m) == nil && string(m["id"]) == string(want) && m["method"] == nil {
				got = append(got, m)
			}
		}
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("%d answers to id %s, want %d", len(got), want, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// nullIDErrors counts error answers with id null.
func (c *rawClient) nullIDErrors() int {
	n := 0
	for _, f := range c.e.Frames() {
		var m map[string]json.RawMessage
		if json.Unmarshal(f, &m) == nil && string(m["id"]) == "null" && m["error"] != nil {
			n++
		}
	}
	return n
}

// ping checks that the server still answers a good request.
func (c *rawClient) ping(after string) {
	c.t.Helper()
	c.n++
	id := fmt.Sprintf("ping-%d", c.n)
	m := c.send(id, `{"jsonrpc":"2.0","id":"`+id+`","method":"session/list","params":{}}`)
	if m["result"] == nil {
		c.t.Fatalf("after %s: session/list answered %s", after, mustJSON(m))
	}
}

func errorCode(m map[string]json.RawMessage) int {
	var e struct {
		Code int `json:"code"`
	}
	if json.Unmarshal(m["error"], &e) != nil {
		return 0
	}
	return e.Code
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func request(id, method string, params any) string {
	return mustJSON(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

// with returns a copy of base with one field replaced (a dotted path; an
// index into an array is a number).
func with(base map[string]any, path string, value any) map[string]any {
	var cp map[string]any
	json.Unmarshal([]byte(mustJSON(base)), &cp)
	keys := strings.Split(path, ".")
	var cur any = cp
	for i, k := range keys {
		last := i == len(keys)-1
		switch node := cur.(type) {
		case map[string]any:
			if last {
				node[k] = value
			} else {
				cur = node[k]
			}
		case []any:
			idx, _ := strconv.Atoi(k)
			if last {
				node[idx] = value
			} else {
				cur = node[idx]
			}
		}
	}
	return cp
}

// The binary answers every malformed or misdirected message with a
// JSON-RPC error (or ignores a notification, as JSON-RPC requires) and
// keeps serving: a good request is answered after each case.
func TestBadInputBattery(t *testing.T) {
	ctx := testCtx(t)
	model := newFakeModel(t) // every model request stalls until cancelled
	p := startProc(t, model.srv.URL, procOpts{config: "- id: llm\n  name: llm/anthropic\n  config: {model: claude-sonnet-4-5}\n"})
	c := &rawClient{t: t, e: p.e}
	cases := 0

	// Before initialize.
	for _, m := range []string{acp.MethodSessionPrompt, acp.MethodSessionNew, acp.MethodSessionList} {
		id := "pre-init-" + m
		a := c.send(id, request(id, m, map[string]any{"sessionId": "sess_x", "cwd": p.work, "mcpServers": []any{}, "prompt": []any{map[string]any{"type": "text", "text": "hi"}}}))
		if errorCode(a) != acp.CodeInvalidRequest {
			t.Errorf("%s before initialize: %s, want -32600", m, mustJSON(a))
		}
		cases++
	}
	p.e.Initialize(ctx, acp.ClientCapabilities{})
	sid := p.e.NewSession(ctx, p.work).SessionID
	c.ping("initialize")

	// Wrong types in every params field of every agent method.
	text := map[string]any{"type": "text", "text": "hi"}
	bases := map[string]map[string]any{
		acp.MethodInitialize:             {"protocolVersion": 1, "clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": true, "writeTextFile": true}, "terminal": true}, "clientInfo": map[string]any{"name": "x", "version": "1"}},
		acp.MethodAuthenticate:           {"methodId": "anthropic-api-key"},
		acp.MethodSessionNew:             {"cwd": p.work, "mcpServers": []any{}, "additionalDirectories": []any{p.work}},
		acp.MethodSessionLoad:            {"sessionId": sid, "cwd": p.work, "mcpServers": []any{}, "additionalDirectories": []any{p.work}},
		acp.MethodSessionList:            {"cwd": p.work, "cursor": "c"},
		acp.MethodSessionClose:           {"sessionId": sid},
		acp.MethodSessionSetMode:         {"sessionId": sid, "modeId": "default"},
		acp.MethodSessionSetConfigOption: {"sessionId": sid, "configId": "mode", "value": "default"},
		acp.MethodSessionPrompt:          {"sessionId": sid, "prompt": []any{text}},
	}
	wrong := []struct {
		method, field string
		value         any
	}{
		{acp.MethodInitialize, "protocolVersion", "1"},
		{acp.MethodInitialize, "protocolVersion", 1.5},
		{acp.MethodInitialize, "clientCapabilities", "all"},
		{acp.MethodInitialize, "clientCapabilities.fs", true},
		{acp.MethodInitialize, "clientCapabilities.fs.readTextFile", "yes"},
		{acp.MethodInitialize, "clientCapabilities.terminal", 1},
		{acp.MethodInitialize, "clientInfo", "acptest"},
		{acp.MethodInitialize, "clientInfo.name", 7},
		{acp.MethodAuthenticate, "methodId", 5},
		{acp.MethodSessionNew, "cwd", 5},
		{acp.MethodSessionNew, "cwd", "relative/dir"},
		{acp.MethodSessionNew, "mcpServers", "none"},
		{acp.MethodSessionNew, "mcpServers", []any{5}},
		{acp.MethodSessionNew, "additionalDirectories", "/tmp"},
		{acp.MethodSessionNew, "additionalDirectories", []any{5}},
		{acp.MethodSessionLoad, "sessionId", 5},
		{acp.MethodSessionLoad, "cwd", []any{}},
		{acp.MethodSessionLoad, "mcpServers", map[string]any{}},
		{acp.MethodSessionLoad, "additionalDirectories", 7},
		{acp.MethodSessionList, "cwd", 5},
		{acp.MethodSessionList, "cursor", false},
		{acp.MethodSessionClose, "sessionId", []any{sid}},
		{acp.MethodSessionSetMode, "sessionId", 5},
		{acp.MethodSessionSetMode, "modeId", 5},
		{acp.MethodSessionSetMode, "modeId", "no-such-mode"},
		{acp.MethodSessionSetConfigOption, "sessionId", 5},
		{acp.MethodSessionSetConfigOption, "configId", 5},
		{acp.MethodSessionSetConfigOption, "value", map[string]any{}},
		{acp.MethodSessionSetConfigOption, "value", true},
		{acp.MethodSessionSetConfigOption, "type", 5},
		{acp.MethodSessionPrompt, "sessionId", 5},
		{acp.MethodSessionPrompt, "prompt", "hi"},
		{acp.MethodSessionPrompt, "prompt", []any{}},
		{acp.MethodSessionPrompt, "prompt.0", "hi"},
		{acp.MethodSessionPrompt, "prompt.0.type", 5},
		{acp.MethodSessionPrompt, "prompt.0.type", "video"},
		{acp.MethodSessionPrompt, "prompt.0.text", 5},
		{acp.MethodSessionPrompt, "prompt.0", map[string]any{"type": "image", "data": 5, "mimeType": "image/png"}},
		{acp.MethodSessionPrompt, "prompt.0", map[string]any{"type": "resource", "resource": "file:///x"}},
		{acp.MethodSessionPrompt, "prompt.0", map[string]any{"type": "resource_link", "uri": 5, "name": "x"}},
	}
	for i, w := range wrong {
		id := fmt.Sprintf("wrong-%d", i)
		a := c.send(id, request(id, w.method, with(bases[w.method], w.field, w.value)))
		if a["error"] == nil {
			t.Errorf("%s with %s = %s: answered %s, want an error", w.method, w.field, mustJSON(w.value), mustJSON(a))
		} else if code := errorCode(a); code != acp.CodeInvalidParams {
			t.Errorf("%s with %s = %s: code %d, want -32602: %s", w.method, w.field, mustJSON(w.value), code, a["error"])
		}
		c.ping(id)
		cases++
	}
	// Params of the wrong shape for every method.
	for i, m := range []string{acp.MethodInitialize, acp.MethodAuthenticate, acp.MethodSessionNew, acp.MethodSessionLoad, acp.MethodSessionClose, acp.MethodSessionSetMode, acp.MethodSessionSetConfigOption, acp.MethodSessionPrompt} {
		for j, params := range []string{`"x"`, `[]`, `5`, `null`, `{}`} {
			id := fmt.Sprintf("shape-%d-%d", i, j)
			a := c.send(id, `{"jsonrpc":"2.0","id":"`+id+`","method":"`+m+`","params":`+params+`}`)
			if code := errorCode(a); code != acp.CodeInvalidParams {
				t.Errorf("%s with params %s: %s, want -32602", m, params, mustJSON(a))
			}
			cases++
		}
	}
	// Notifications with wrong types are ignored.
	for _, params := range []string{`{"sessionId":5}`, `"x"`, `{}`, `null`} {
		p.e.WriteRaw(`{"jsonrpc":"2.0","method":"session/cancel","params":` + params + `}`)
		p.e.WriteRaw(`{"jsonrpc":"2.0","method":"$/cancel_request","params":` + params + `}`)
		cases += 2
	}
	c.ping("malformed notifications")

	// Unknown session ids for every session method (and ids that try to
	// name a file outside the state directory).
	for _, unknown := range []string{"sess_doesnotexist", "../../../etc/passwd", "sess_" + strings.Repeat("a", 5000), ""} {
		for _, m := range []string{acp.MethodSessionLoad, acp.MethodSessionClose, acp.MethodSessionSetMode, acp.MethodSessionSetConfigOption, acp.MethodSessionPrompt} {
			id := fmt.Sprintf("unknown-%s-%d", m, len(unknown))
			a := c.send(id, request(id, m, with(bases[m], "sessionId", unknown)))
			if code := errorCode(a); code != acp.CodeResourceNotFound {
				t.Errorf("%s for session %.40q: %s, want -32002", m, unknown, mustJSON(a))
			}
			cases++
		}
		p.e.WriteRaw(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":` + strconv.Quote(unknown) + `}}`)
		cases++
		c.ping("unknown session " + unknown)
	}
	filepath.WalkDir(p.state, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.Contains(path, sid) {
			t.Errorf("unknown session ids left a file: %s", path)
		}
		return nil
	})

	// Unknown methods and malformed messages.
	for i, m := range []struct {
		line string
		code int
	}{
		{`{"jsonrpc":"2.0","id":"m1","method":"session/frobnicate","params":{}}`, acp.CodeMethodNotFound},
		{`{"jsonrpc":"2.0","id":"m2","method":"_cordis/unknown"}`, acp.CodeMethodNotFound},
		{`{"jsonrpc":"2.0","id":"m3","method":5}`, acp.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":"m4"}`, acp.CodeInvalidRequest},
	} {
		id := fmt.Sprintf("m%d", i+1)
		if a := c.send(id, m.line); errorCode(a) != m.code {
			t.Errorf("%s: answered %s, want %d", m.line, mustJSON(a), m.code)
		}
		cases++
	}
	before := c.nullIDErrors()
	for _, line := range []string{"garbage {", `{"jsonrpc":"2.0","id":"x",`, "\x00\xff", `[{"jsonrpc":"2.0","id":"b","method":"session/list"}]`, `[]`} {
		p.e.WriteRaw(line)
		cases++
	}
	c.ping("malformed lines")
	if got := c.nullIDErrors() - before; got != 5 {
		t.Errorf("%d id-null errors for 5 malformed lines", got)
	}
	// Stray responses to requests the agent never made are dropped.
	p.e.WriteRaw(`{"jsonrpc":"2.0","id":"never-asked","result":{}}`)
	p.e.WriteRaw(`{"jsonrpc":"2.0","id":987654,"error":{"code":-32603,"message":"x"}}`)
	cases += 2
	c.ping("stray responses")

	// Deeply nested JSON: 100,000 levels, bare and inside params.
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	before = c.nullIDErrors()
	p.e.WriteRaw(deep)
	p.e.WriteRaw(`{"jsonrpc":"2.0","id":"deep","method":"session/list","params":{"cwd":` + deep + `}}`)
	deepObj := strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000)
	p.e.WriteRaw(`{"jsonrpc":"2.0","id":"deep2","method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"x","_meta":` + deepObj + `}]}}`)
	cases += 3
	c.ping("deeply nested JSON")
	if got := c.nullIDErrors() - before; got != 3 {
		t.Errorf("%d id-null parse errors for 3 deeply nested lines, want 3", got)
	}

	// Duplicate request ids: each request is answered, in order.
	p.e.WriteRaw(request("dup", acp.MethodSessionList, map[string]any{}) + "\n" + request("dup", acp.MethodSessionList, map[string]any{}) + "\n" + request("dup", acp.MethodSessionSetMode, map[string]any{"sessionId": "sess_nope", "modeId": "default"}))
	dups := c.await("dup", 3)
	if dups[0]["result"] == nil || dups[1]["result"] == nil || errorCode(dups[2]) != acp.CodeResourceNotFound {
		t.Errorf("duplicate ids answered %s", mustJSON(dups))
	}
	cases += 3
	c.ping("duplicate ids")

	// A flood of 1000 cancels: for the idle session, unknown sessions and
	// unknown requests, and then while a turn runs (answered once).
	var flood strings.Builder
	for i := range 1000 {
		switch i % 3 {
		case 0:
			fmt.Fprintf(&flood, `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"%s"}}`+"\n", sid)
		case 1:
			fmt.Fprintf(&flood, `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"sess_flood%d"}}`+"\n", i)
		case 2:
			fmt.Fprintf(&flood, `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"r%d"}}`+"\n", i)
		}
	}
	before = len(c.e.Frames())
	p.e.WriteRaw(strings.TrimSuffix(flood.String(), "\n"))
	c.ping("1000 cancels")
	if n := len(c.e.Frames()) - before; n != 1 {
		t.Errorf("%d frames after 1000 cancel notifications and a ping, want the ping's answer only", n)
	}
	p.e.WriteRaw(request("flooded", acp.MethodSessionPrompt, bases[acp.MethodSessionPrompt]))
	waitModelRequests(t, model, 1)
	p.e.WriteRaw(strings.TrimSuffix(strings.Repeat(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"`+sid+`"}}`+"\n", 1000), "\n"))
	if a := c.await("flooded", 1); !strings.Contains(mustJSON(a[0]), `"stopReason":"cancelled"`) {
		t.Errorf("the flooded prompt answered %s", mustJSON(a))
	}
	// The ping's answer comes after the server handled every cancel sent
	// before it: a second answer to the prompt would be there by then.
	c.ping("1000 cancels during a turn")
	if n := len(c.await("flooded", 1)); n != 1 {
		t.Errorf("the flooded prompt was answered %d times", n)
	}
	cases += 2000

	// The session still works after all of it.
	model.mu.Lock()
	model.bodies = []string{textReply("Still serving.")}
	model.mu.Unlock()
	stop, err := p.e.Prompt(ctx, sid, "hello again")
	if err != nil || stop != acp.StopEndTurn {
		t.Fatalf("a good prompt after the battery: %q, %v", stop, err)
	}
	t.Logf("bad input battery: %d cases, the server answered a good request after each group", cases)
}

func waitModelRequests(t *testing.T, model *fakeModel, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for len(model.Requests()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d model requests, want %d", len(model.Requests()), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// rawProc drives the binary over bare pipes, for input acptest should not
// see: oversized lines (it would copy them into its transcript) and
// duplicate ids answered out of order (the transcript validator pairs
// answers with requests by id, first in first out).
type rawProc struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan []byte
}

func startRaw(t *testing.T, modelURL string) *rawProc {
	cmd := exec.Command(binary, "acp", "--state-dir", t.TempDir())
	cmd.Env = isolatedEnv(t, modelURL)
	cmd.Dir = t.TempDir()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &rawProc{t: t, cmd: cmd, stdin: stdin, lines: make(chan []byte, 100)}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("the agent exited with %v", err)
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Error("the agent did not exit after stdin closed")
		}
		if t.Failed() {
			t.Logf("agent stderr:\n%s", stderr.String())
		}
	})
	go func() {
		r := bufio.NewReaderSize(stdout, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				p.lines <- line
			}
			if err != nil {
				close(p.lines)
				return
			}
		}
	}()
	p.write(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":1}}` + "\n")
	if m := p.next("initialize"); m["result"] == nil {
		t.Fatalf("initialize: %s", mustJSON(m))
	}
	return p
}

func (p *rawProc) write(parts ...string) {
	p.t.Helper()
	for _, s := range parts {
		if _, err := io.WriteString(p.stdin, s); err != nil {
			p.t.Fatalf("write: %v", err)
		}
	}
}

// next returns the next frame the agent wrote.
func (p *rawProc) next(what string) map[string]json.RawMessage {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			p.t.Fatalf("%s: stdout closed", what)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(line, &m); err != nil || string(m["jsonrpc"]) != `"2.0"` {
			p.t.Fatalf("%s: not a JSON-RPC line: %.200q", what, line)
		}
		return m
	case <-time.After(30 * time.Second):
		p.t.Fatalf("%s: no answer within 30s", what)
	}
	return nil
}

// answer returns the next frame that is a response (skipping updates).
func (p *rawProc) answer(what string) map[string]json.RawMessage {
	p.t.Helper()
	for {
		if m := p.next(what); m["method"] == nil {
			return m
		}
	}
}

// Oversized lines: a line over 10 MiB is processed like any other, a line
// over the 64 MiB cap is answered with a parse error and dropped, and the
// server keeps serving.
func TestOversizedLines(t *testing.T) {
	model := newFakeModel(t)
	p := startRaw(t, model.srv.URL)
	eleven := strings.Repeat("x", 11<<20)
	cases := []struct {
		name  string
		parts []string
		id    string // the id of the answer; "null" for a parse error
		code  int
	}{
		{"11 MiB prompt to an unknown session", []string{`{"jsonrpc":"2.0","id":"big","method":"session/prompt","params":{"sessionId":"sess_nope","prompt":[{"type":"text","text":"`, eleven, `"}]}}` + "\n"}, `"big"`, acp.CodeResourceNotFound},
		{"11 MiB of garbage", []string{eleven, "\n"}, "null", acp.CodeParseError},
		{"65 MiB valid request", []string{`{"jsonrpc":"2.0","id":"huge","method":"session/list","params":{"cwd":"`, strings.Repeat("y", 65<<20), `"}}` + "\n"}, "null", acp.CodeParseError},
		{"65 MiB without a newline until the end", []string{strings.Repeat("z", 65<<20), "\n"}, "null", acp.CodeParseError},
	}
	for i, c := range cases {
		p.write(c.parts...)
		m := p.answer(c.name)
		if string(m["id"]) != c.id || errorCode(m) != c.code {
			t.Errorf("%s: answered %.300s, want id %s code %d", c.name, mustJSON(m), c.id, c.code)
		}
		id := fmt.Sprintf("after-%d", i)
		p.write(`{"jsonrpc":"2.0","id":"` + id + `","method":"session/list","params":{}}` + "\n")
		if m := p.answer("session/list after " + c.name); string(m["id"]) != `"`+id+`"` || m["result"] == nil {
			t.Errorf("after %s: session/list answered %.300s", c.name, mustJSON(m))
		}
		t.Logf("%s: answered; peak resident memory so far %d MiB", c.name, peakRSS(p.cmd.Process.Pid)>>20)
	}
	// Reading up to the cap buffers the line (a legitimate message may be
	// that long); beyond it nothing more is kept.
	if hwm := peakRSS(p.cmd.Process.Pid); hwm > 512<<20 {
		t.Errorf("peak resident memory %d MiB: an oversized line was buffered", hwm>>20)
	}
}

// A request reusing the id of a running prompt is answered on its own, and
// the prompt is still answered (cancelled) under the same id afterwards.
func TestDuplicateIDOfRunningPrompt(t *testing.T) {
	model := newFakeModel(t) // the prompt stalls until cancelled
	p := startRaw(t, model.srv.URL)
	cwd := t.TempDir()
	p.write(`{"jsonrpc":"2.0","id":"new","method":"session/new","params":{"cwd":` + strconv.Quote(cwd) + `,"mcpServers":[]}}` + "\n")
	var sess struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(p.answer("session/new")["result"], &sess)
	p.write(`{"jsonrpc":"2.0","id":"dup","method":"session/prompt","params":{"sessionId":"` + sess.SessionID + `","prompt":[{"type":"text","text":"hi"}]}}` + "\n")
	waitModelRequests(t, model, 1)
	p.write(`{"jsonrpc":"2.0","id":"dup","method":"session/list","params":{}}` + "\n")
	if m := p.answer("session/list with the prompt's id"); string(m["id"]) != `"dup"` || !strings.Contains(string(m["result"]), `"sessions"`) {
		t.Fatalf("session/list answered %s", mustJSON(m))
	}
	p.write(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"` + sess.SessionID + `"}}` + "\n")
	if m := p.answer("the prompt"); string(m["id"]) != `"dup"` || !strings.Contains(string(m["result"]), `"cancelled"`) {
		t.Fatalf("the prompt answered %s", mustJSON(m))
	}
}

// peakRSS returns a process's peak resident set size in bytes (0 if
// unknown).
func peakRSS(pid int) int {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			var kb int
			fmt.Sscan(strings.TrimSpace(v), &kb)
			return kb << 10
		}
	}
	return 0
}
