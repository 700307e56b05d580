package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/sessionlog"
	"golang.org/x/sys/unix"
)

// Durability and liveness through the real binary (issue 18): a log has
// one writer, a full disk stops the session loudly, streamed text and
// interrupted tool calls survive kill -9, and nothing cordis started
// outlives it however the editor leaves.

// A second process cannot load a session another one has open: it gets a
// clear error, and the log stays sound.
func TestSecondProcessCannotLoadAnOpenSession(t *testing.T) {
	ctx := testCtx(t)
	model := newFakeModel(t, textReply("first"), textReply("second"))
	p1 := startProc(t, model.srv.URL, procOpts{config: bypassConfig("")})
	p1.e.Initialize(ctx, acp.ClientCapabilities{})
	sid := p1.e.NewSession(ctx, p1.work).SessionID
	if stop, err := p1.e.Prompt(ctx, sid, "hello"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	e2, _ := startAgent(t, model, p1.state, p1.work)
	e2.Initialize(ctx, acp.ClientCapabilities{})
	var out json.RawMessage
	err := e2.Call(ctx, acp.MethodSessionLoad, acp.LoadSessionRequest{SessionID: sid, Cwd: p1.work, MCPServers: []acp.MCPServer{}}, &out)
	if err == nil || !strings.Contains(err.Error(), "open in another cordis process") {
		t.Fatalf("session/load of an open session = %v, want the lock error", err)
	}
	if _, _, err := sessionlog.Read(sessionlog.Path(p1.state, sid)); err != nil {
		t.Fatalf("the log is damaged: %v", err)
	}
}

// A full disk (an injected file size limit): session/new leaves no empty
// log; the turn whose append fails ends with a JSON-RPC error saying the
// session can no longer be saved; the next prompt is refused until space
// returns, then the session goes on.
func TestFullDiskStopsTheSessionLoudly(t *testing.T) {
	ctx := testCtx(t)
	long := strings.Repeat("words that fill the disk ", 200)
	model := newFakeModel(t, textReply(long), textReply("after space returned"))
	p := startProc(t, model.srv.URL, procOpts{config: bypassConfig("")})
	p.e.Initialize(ctx, acp.ClientCapabilities{})
	pid := p.cmd.Process.Pid
	setFileLimit(t, pid, 0)
	var created acp.NewSessionResponse
	err := p.e.Call(ctx, acp.MethodSessionNew, acp.NewSessionRequest{Cwd: p.work, MCPServers: []acp.MCPServer{}}, &created)
	if err == nil {
		t.Fatal("session/new succeeded with no space")
	}
	if entries, _ := os.ReadDir(filepath.Join(p.state, "sessions")); len(entries) != 0 {
		t.Fatalf("a failed session/new left %d files behind", len(entries))
	}
	setFileLimit(t, pid, unix.RLIM_INFINITY)
	sid := p.e.NewSession(ctx, p.work).SessionID
	fi, err := os.Stat(sessionlog.Path(p.state, sid))
	if err != nil {
		t.Fatal(err)
	}
	setFileLimit(t, pid, uint64(fi.Size())+600)
	if _, err := p.e.Prompt(ctx, sid, "fill it"); err == nil || !strings.Contains(err.Error(), "can no longer be saved") {
		t.Fatalf("prompt on a full disk = %v, want the unsaved error", err)
	}
	if _, err := p.e.Prompt(ctx, sid, "again"); err == nil || !strings.Contains(err.Error(), "can no longer be saved") {
		t.Fatalf("next prompt on a full disk = %v, want it refused", err)
	}
	setFileLimit(t, pid, unix.RLIM_INFINITY)
	if stop, err := p.e.Prompt(ctx, sid, "space is back"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt after space returned = %q, %v", stop, err)
	}
	if _, _, err := sessionlog.Read(sessionlog.Path(p.state, sid)); err != nil {
		t.Fatalf("the log is damaged: %v", err)
	}
}

// setFileLimit sets RLIMIT_FSIZE of pid (the soft limit; the hard one
// stays unlimited so that it can be raised again).
func setFileLimit(t *testing.T, pid int, n uint64) {
	t.Helper()
	if err := unix.Prlimit(pid, unix.RLIMIT_FSIZE, &unix.Rlimit{Cur: n, Max: unix.RLIM_INFINITY}, nil); err != nil {
		t.Skipf("prlimit: %v", err)
	}
}

// streamingModel streams text in chunks and then stalls, as a model does
// when the agent is killed mid-answer.
func streamingModel(t *testing.T, chunk string, n int) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		io.WriteString(w, ev("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":10,"output_tokens":1}}}`))
		io.WriteString(w, ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`))
		q, _ := json.Marshal(chunk)
		for range n {
			io.WriteString(w, ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`+string(q)+`}}`))
			fl.Flush()
		}
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv
}

// kill -9 while text streams: what reached the log in batches is
// replayed by session/load, and the call a crash interrupted shows failed.
func TestKillWhileTextStreamsKeepsTheBatches(t *testing.T) {
	ctx := testCtx(t)
	chunk := "0123456789abcdefghijklmnopqrstuvwxyz-streamed-text-"
	srv := streamingModel(t, chunk, 200) // 10 KiB: at least two full batches
	p := startProc(t, srv.URL, procOpts{config: bypassConfig("")})
	p.e.Initialize(ctx, acp.ClientCapabilities{})
	sid := p.e.NewSession(ctx, p.work).SessionID
	go p.e.Prompt(ctx, sid, "tell me a long story")
	logPath := sessionlog.Path(p.state, sid)
	waitFor(t, "streamed text in the log", func() bool {
		data, _ := os.ReadFile(logPath)
		return strings.Count(string(data), `"type":"stream/text"`) >= 2
	})
	p.e.Kill()
	waitExited(t, p.cmd.Process.Pid, 10*time.Second)

	e2, _ := startAgent(t, newFakeModel(t), p.state, p.work, "--config", configFile(t, bypassConfig("")))
	e2.Initialize(ctx, acp.ClientCapabilities{})
	var out json.RawMessage
	if err := e2.Call(ctx, acp.MethodSessionLoad, acp.LoadSessionRequest{SessionID: sid, Cwd: p.work, MCPServers: []acp.MCPServer{}}, &out); err != nil {
		t.Fatal(err)
	}
	var shown strings.Builder
	for _, u := range e2.Updates(sid) {
		if c, ok := u.(*acp.AgentMessageChunk); ok {
			shown.WriteString(c.Content.Text)
		}
	}
	if want := strings.Repeat(chunk, 4096/len(chunk)); !strings.Contains(shown.String(), want) {
		t.Fatalf("load replayed %d bytes of streamed text, want at least the first batch (%d bytes)", shown.Len(), len(want))
	}
	t.Logf("streamed %d bytes, replayed %d after kill -9", len(chunk)*200, shown.Len())
}

// configFile writes config to a file for --config.
func configFile(t *testing.T, config string) string {
	path := filepath.Join(t.TempDir(), "cordis.yml")
	if err := os.WriteFile(path, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// waitFor polls cond with a generous deadline (a deadlock guard only).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// SIGKILL of cordis while a Bash command (with a background child) runs:
// neither outlives it (the watchdog kills the group).
func TestSigkillLeavesNoCommandRunning(t *testing.T) {
	ctx := testCtx(t)
	pidFile := filepath.Join(t.TempDir(), "pids")
	script := "echo $$ > " + pidFile + ".tmp; sleep 100 & echo $! >> " + pidFile + ".tmp; mv " + pidFile + ".tmp " + pidFile + "; wait"
	model := newFakeModel(t, toolReply("toolu_1", "Bash", `{"command":`+strconv.Quote(script)+`}`))
	p := startProc(t, model.srv.URL, procOpts{config: bypassConfig("")})
	p.e.Initialize(ctx, acp.ClientCapabilities{})
	sid := p.e.NewSession(ctx, p.work).SessionID
	go p.e.Prompt(ctx, sid, "sleep")
	pids := waitPids(t, pidFile, 2)
	p.e.Kill()
	if left := waitGone(pids, 10*time.Second); len(left) > 0 {
		t.Fatalf("processes %v outlived SIGKILL of the agent", left)
	}
}

// A PostToolUse hook that sleeps: session/cancel is still answered
// promptly (the hook is killed), and the latency is logged.
func TestCancelWhilePostToolUseHookRuns(t *testing.T) {
	ctx := testCtx(t)
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pids")
	hooks := writeHooks(t, dir, 600, map[string]string{"PostToolUse": "trap '' TERM; echo $$ > " + pidFile + "; sleep 100 & wait"})
	model := newFakeModel(t, toolReply("toolu_1", "Bash", `{"command":"true"}`))
	p := startProc(t, model.srv.URL, procOpts{config: bypassConfig(claudeHooksEntry(hooks))})
	p.e.Initialize(ctx, acp.ClientCapabilities{})
	sid := p.e.NewSession(ctx, p.work).SessionID
	done := make(chan acp.StopReason, 1)
	go func() { stop, _ := p.e.Prompt(ctx, sid, "run it"); done <- stop }()
	pids := waitPids(t, pidFile, 1)
	start := time.Now()
	p.e.Notify(ctx, acp.MethodSessionCancel, acp.CancelNotification{SessionID: sid})
	select {
	case stop := <-done:
		t.Logf("cancel answered %s after session/cancel, with a PostToolUse hook ignoring SIGTERM", time.Since(start).Round(time.Millisecond))
		if stop != acp.StopCancelled {
			t.Fatalf("stop = %q, want cancelled", stop)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("session/cancel was not answered while a PostToolUse hook ran")
	}
	if left := waitGone(pids, 10*time.Second); len(left) > 0 {
		t.Fatalf("the hook %v outlived the cancel", left)
	}
}

// The editor closes its end of stdout: cordis exits and the running
// command goes with it.
func TestStdoutClosedEndsTheAgent(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pids")
	script := "echo $$ > " + pidFile + ".tmp; sleep 100 & echo $! >> " + pidFile + ".tmp; mv " + pidFile + ".tmp " + pidFile + "; wait"
	model := newFakeModel(t, toolReply("toolu_1", "Bash", `{"command":`+strconv.Quote(script)+`}`))
	state, work := t.TempDir(), t.TempDir()
	cmd := exec.Command(binary, "acp", "--state-dir", state, "--config", configFile(t, bypassConfig("")))
	cmd.Env, cmd.Dir = isolatedEnv(t, model.srv.URL), work
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 1<<20)
	answer := func(id string) string {
		for lines.Scan() {
			if strings.Contains(lines.Text(), `"id":`+id+`,`) || strings.Contains(lines.Text(), `"id":`+id+`}`) {
				return lines.Text()
			}
		}
		t.Fatalf("no answer to %s", id)
		return ""
	}
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	answer("1")
	fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`+"\n", work)
	var created struct {
		Result struct{ SessionID string } `json:"result"`
	}
	json.Unmarshal([]byte(answer("2")), &created)
	fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"sleep"}]}}`+"\n", created.Result.SessionID)
	pids := waitPids(t, pidFile, 2)
	stdout.Close() // the editor's read end is gone; stdin stays open
	waitExited(t, cmd.Process.Pid, 20*time.Second)
	if left := waitGone(pids, 10*time.Second); len(left) > 0 {
		t.Fatalf("processes %v outlived the agent", left)
	}
}

// A hung SessionStart hook holds session/new only for
// agent.sessionStartTimeout, and the editor is told what was skipped.
func TestHungSessionStartHookIsBounded(t *testing.T) {
	ctx := testCtx(t)
	dir := t.TempDir()
	hooks := writeHooks(t, dir, 600, map[string]string{"SessionStart": "sleep 100"})
	config := "- id: agent\n  name: agent\n  config: {defaultMode: bypassPermissions, sessionStartTimeout: 500ms}\n- id: llm\n  name: llm/anthropic\n  config: {model: claude-sonnet-4-5, maxRetries: -1}\n" + claudeHooksEntry(hooks)
	p := startProc(t, newFakeModel(t).srv.URL, procOpts{config: config})
	p.e.Initialize(ctx, acp.ClientCapabilities{})
	sid := p.e.NewSession(ctx, p.work).SessionID
	waitFor(t, "the skipped SessionStart notice", func() bool {
		for _, u := range p.e.Updates(sid) {
			if c, ok := u.(*acp.AgentMessageChunk); ok && strings.Contains(c.Content.Text, "SessionStart hooks did not finish within 500ms") {
				return true
			}
		}
		return false
	})
}
