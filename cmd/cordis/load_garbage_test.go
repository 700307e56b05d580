package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/sessionlog"
)

// Issue 27, finding 11: session/load of a file in which no line is a
// session log event answers a JSON-RPC error that names the file, and
// leaves the file as it was (nothing cut off, nothing saved aside); it
// used to answer success with an empty session. An empty file still loads
// (what a crash right after the log was created leaves), and a log
// damaged after some events still loads up to the damage.
func TestLoadOfALogWithoutEvents(t *testing.T) {
	ctx := testCtx(t)
	model := newFakeModel(t, textReply("First answer."))
	p := startProc(t, model.srv.URL, procOpts{})
	p.e.Initialize(ctx, acp.ClientCapabilities{})
	load := func(sid string) error {
		var resp acp.LoadSessionResponse
		return p.e.Call(ctx, acp.MethodSessionLoad, acp.LoadSessionRequest{SessionID: sid, Cwd: p.work, MCPServers: []acp.MCPServer{}}, &resp)
	}
	write := func(content string) (sid, path string) {
		sid = sessionlog.NewID()
		path = sessionlog.Path(p.state, sid)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return sid, path
	}

	for name, content := range map[string]string{
		"garbage":         "\x00\xffnot a log\n{\"some\":\"json\"}\nmore garbage\n",
		"one torn line":   `{"v":1,"seq":1,"time":"2025-01-02T03:04:05Z","ty`,
		"out of sequence": `{"v":1,"seq":7,"time":"2025-01-02T03:04:05Z","type":"turn/start","data":{}}` + "\n",
	} {
		sid, path := write(content)
		err := load(sid)
		if err == nil {
			t.Errorf("%s: session/load succeeded, want an error", name)
			continue
		}
		if rpcCode(err) == 0 || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "no event") {
			t.Errorf("%s: session/load answered %v (code %d), want a JSON-RPC error naming %s", name, err, rpcCode(err), path)
		}
		if got, _ := os.ReadFile(path); string(got) != content {
			t.Errorf("%s: the file was changed to %q", name, got)
		}
		if saved, _ := filepath.Glob(path + ".dropped-*"); len(saved) > 0 {
			t.Errorf("%s: the file was saved aside in %v", name, saved)
		}
	}

	// An empty file: nothing to lose, it loads as a session without turns.
	sid, _ := write("")
	if err := load(sid); err != nil {
		t.Errorf("session/load of an empty log: %v", err)
	}

	// A real session damaged after its first turn loads up to the damage.
	sid = p.e.NewSession(ctx, p.work).SessionID
	if _, err := p.e.Prompt(ctx, sid, "hello"); err != nil {
		t.Fatal(err)
	}
	path := sessionlog.Path(p.state, sid)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("garbage in the middle\n{\"v\":1}\n")
	f.Close()
	before := len(p.e.Frames())
	if err := load(sid); err != nil {
		t.Fatalf("session/load of a log damaged after a turn: %v", err)
	}
	var replayed bytes.Buffer
	for _, f := range p.e.Frames()[before:] {
		replayed.Write(f)
	}
	if !strings.Contains(replayed.String(), "First answer.") {
		t.Errorf("the damaged log's turn was not replayed")
	}
	if saved, _ := filepath.Glob(path + ".dropped-*"); len(saved) != 1 {
		t.Errorf("the damaged part was not saved aside: %v", saved)
	}
}
