package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/cordis-agent/cordis/acp"
)

// Claude Code's async hooks through the binary: a user's `async`
// UserPromptSubmit hook that waits for a file the test creates only after
// the first prompt was answered does not hold that turn; the
// additionalContext it prints once released reaches the model with the
// next request; and a background hook still running when the session
// closes is killed with its children. Before, async hooks ran in the
// turn: the first prompt waited for the gate (30 s UserPromptSubmit
// timeout) and the report never reached the model.
func TestAsyncHooksThroughTheBinary(t *testing.T) {
	ctx := testCtx(t)
	s := newClaudeSetup(t)
	marks := t.TempDir()
	gate, pidFile := filepath.Join(marks, "gate"), filepath.Join(marks, "pid")
	report := `cat >/dev/null; i=0; while [ ! -e '` + gate + `' ]; do i=$((i+1)); [ $i -gt 3000 ] && exit 1; sleep 0.02; done; ` +
		`echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"ASYNC-REPORT-42"}}'`
	lingering := `cat >/dev/null; [ -e '` + pidFile + `' ] && exit 0; sleep 1000 & echo $! > '` + pidFile + `.tmp'; mv '` + pidFile + `.tmp' '` + pidFile + `'; wait`
	s.write(t, filepath.Join(s.home, ".claude", "settings.json"), `{"hooks": {"UserPromptSubmit": [{"hooks": [
		{"type": "command", "command": "`+strings.ReplaceAll(report, `"`, `\"`)+`", "async": true},
		{"type": "command", "command": "`+strings.ReplaceAll(lingering, `"`, `\"`)+`", "async": true}]}]}}`)

	model := newFakeModel(t, textReply("one"), textReply("two"))
	e := s.start(t, model)
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, s.work).SessionID
	prompt(t, ctx, e, sid, "first")
	if _, err := os.Stat(gate); err == nil {
		t.Fatal("unreachable: the gate exists before the test made it")
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(s.state, "sessions", sid+".jsonl")
	waitFor(t, "the async hook's report in the session log", func() bool {
		data, _ := os.ReadFile(logPath)
		return strings.Contains(string(data), `"asyncHook"`) && strings.Contains(string(data), "ASYNC-REPORT-42")
	})
	prompt(t, ctx, e, sid, "second")
	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	if strings.Contains(reqs[0], "ASYNC-REPORT-42") || !strings.Contains(reqs[1], "ASYNC-REPORT-42") {
		t.Fatalf("the async report should reach the second request only:\nfirst: %s\nsecond: %s", reqs[0], reqs[1])
	}

	waitFor(t, "the lingering hook's pid", func() bool { _, err := os.Stat(pidFile); return err == nil })
	data, _ := os.ReadFile(pidFile)
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("the lingering hook's child is gone before the session closed: %v", err)
	}
	if err := e.Call(ctx, acp.MethodSessionClose, acp.CloseSessionRequest{SessionID: sid}, nil); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Fatalf("the background hook's child %d outlived its session", pid)
	}
	e.Close()
}
