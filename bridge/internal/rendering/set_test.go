package rendering

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/sessionlog"
)

// textFormat renders entries as readable lines, the file's header first.
type textFormat struct{}

func (textFormat) Path(logPath string, agent bool) string {
	if agent {
		return strings.TrimSuffix(logPath, ".jsonl") + ".txt"
	}
	return strings.TrimSuffix(logPath, ".jsonl") + "/render.txt"
}

func (textFormat) Start(f File) (Renderer, []byte) {
	return textRenderer{}, fmt.Appendf(nil, "file %s agent=%s type=%s depth=%d cwd=%s\n", f.SessionID, f.AgentID, f.AgentType, f.Depth, f.Cwd)
}

type textRenderer struct{}

func (textRenderer) Render(e Entry) []byte {
	switch {
	case e.Turn != nil:
		return fmt.Appendf(nil, "turn %s model=%s mode=%s\n", e.Turn.ID, e.Turn.Model, e.Turn.Mode)
	case e.Message != nil:
		return fmt.Appendf(nil, "%s %s\n", e.Message.Role, e.Message.Content[0].Text)
	case e.Usage != nil:
		return fmt.Appendf(nil, "usage %d\n", e.Usage.InputTokens)
	}
	return nil
}

type testLog struct {
	t    *testing.T
	path string
	w    *sessionlog.Writer
}

func newLog(t *testing.T, path string) *testLog {
	w, err := sessionlog.Create(path, sessionlog.WithClock(func() time.Time { return time.Unix(0, 0) }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return &testLog{t: t, path: path, w: w}
}

func (l *testLog) add(typ string, data any) {
	if _, err := l.w.Append(typ, data); err != nil {
		l.t.Fatal(err)
	}
}

func (l *testLog) msg(role llm.Role, text string) {
	l.add(sessionlog.TypeMessage, llm.Message{Role: role, Content: []llm.Block{llm.Text(text)}})
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestTurnsWaitForTheirModel: a turn's entries are held until its first
// model request says which model it uses (a prompt command's own), and
// Sync renders only what is new.
func TestTurnsWaitForTheirModel(t *testing.T) {
	state := t.TempDir()
	lg := newLog(t, filepath.Join(state, "s.jsonl"))
	lg.add(sessionlog.TypeSessionStart, map[string]string{"sessionId": "s", "cwd": "/w", "model": "m0", "mode": "default"})
	lg.add(sessionlog.TypeTurnStart, map[string]string{"turnId": "turn-1"})
	lg.msg(llm.RoleUser, "hello")
	set := NewSet(textFormat{})
	in := &hooks.Input{SessionLogPath: lg.path}
	paths, err := set.Sync(in)
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, paths.Session); got != "file s agent= type= depth=0 cwd=/w\n" {
		t.Fatalf("before the request:\n%s", got)
	}
	lg.add(sessionlog.TypeModelRequest, map[string]string{"model": "override"})
	lg.add(sessionlog.TypeModelResponse, map[string]any{"usage": llm.Usage{InputTokens: 5}})
	lg.msg(llm.RoleAssistant, "hi")
	lg.add(sessionlog.TypeModeChange, map[string]string{"mode": "plan"})
	lg.add(sessionlog.TypeTurnStart, map[string]string{"turnId": "turn-2"})
	lg.msg(llm.RoleUser, "again")
	lg.add(sessionlog.TypeTurnEnd, map[string]string{"turnId": "turn-2"}) // cancelled before a request
	if _, err := set.Sync(in); err != nil {
		t.Fatal(err)
	}
	want := "file s agent= type= depth=0 cwd=/w\nturn turn-1 model=override mode=default\nuser hello\nassistant hi\nusage 5\nturn turn-2 model=m0 mode=plan\nuser again\n"
	if got := read(t, paths.Session); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}

	// A new process (a new Set) renders the file whole, over whatever it
	// holds; so does this one when the file is lost.
	os.WriteFile(paths.Session, []byte("stale\n{torn"), 0o600)
	if _, err := NewSet(textFormat{}).Sync(in); err != nil {
		t.Fatal(err)
	}
	if got := read(t, paths.Session); got != want {
		t.Fatalf("rendered again:\n%s", got)
	}
	os.Remove(paths.Session)
	if _, err := set.Sync(in); err != nil {
		t.Fatal(err)
	}
	if got := read(t, paths.Session); got != want {
		t.Fatalf("after loss:\n%s", got)
	}
}

// TestNestedSubagents: a subagent started by another subagent is found in
// its parent's log, with its depth and type; a subagent's turn is the
// hook's.
func TestNestedSubagents(t *testing.T) {
	state := t.TempDir()
	lg := newLog(t, filepath.Join(state, "s.jsonl"))
	lg.add(sessionlog.TypeSessionStart, map[string]string{"sessionId": "s", "cwd": "/w", "model": "m0", "mode": "default"})
	lg.add(sessionlog.TypeSubagentStart, map[string]string{"agentId": "a1", "agentType": "explore"})
	a1 := newLog(t, filepath.Join(state, "s", "subagents", "a1.jsonl"))
	a1.add(sessionlog.TypeSubagentStart, map[string]string{"agentId": "a2", "agentType": "deep"})
	a2 := newLog(t, filepath.Join(state, "s", "subagents", "a2.jsonl"))
	a2.msg(llm.RoleUser, "dig")
	a2.add(sessionlog.TypeModelRequest, map[string]string{"model": "m0"})

	set := NewSet(textFormat{})
	if _, err := set.Sync(&hooks.Input{SessionLogPath: lg.path, AgentLogPath: a1.path, AgentID: "a1", TurnID: "turn-1"}); err != nil {
		t.Fatal(err)
	}
	paths, err := set.Sync(&hooks.Input{SessionLogPath: lg.path, AgentLogPath: a2.path, AgentID: "a2", TurnID: "turn-1"})
	if err != nil {
		t.Fatal(err)
	}
	want := "file s agent=a2 type=deep depth=2 cwd=/w\nturn turn-1 model=m0 mode=default\nuser dig\n"
	if got := read(t, paths.Agent); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestConcurrentSyncs: hooks of one session syncing at once leave every
// line once, in order.
func TestConcurrentSyncs(t *testing.T) {
	lg := newLog(t, filepath.Join(t.TempDir(), "s.jsonl"))
	lg.add(sessionlog.TypeSessionStart, map[string]string{"sessionId": "s", "cwd": "/w", "model": "m0", "mode": "default"})
	set := NewSet(textFormat{})
	in := &hooks.Input{SessionLogPath: lg.path}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 10 {
				lg.msg(llm.RoleUser, fmt.Sprintf("m%d-%d", i, j))
				if _, err := set.Sync(in); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	set.Sync(in)
	events, _, err := sessionlog.Read(lg.path)
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	want.WriteString("file s agent= type= depth=0 cwd=/w\n")
	for _, ev := range events[1:] {
		m, _ := decode[llm.Message](ev)
		fmt.Fprintf(&want, "user %s\n", m.Content[0].Text)
	}
	if got := read(t, set.format.Path(lg.path, false)); got != want.String() {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want.String())
	}
}
