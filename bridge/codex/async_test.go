package codex

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/hooks"
)

// testLater is a session's hooks.Later for tests.
type testLater struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	got    chan hooks.LateResult
}

func newTestLater(t *testing.T) *testLater {
	ctx, cancel := context.WithCancel(context.Background())
	l := &testLater{ctx: ctx, cancel: cancel, got: make(chan hooks.LateResult, 64)}
	t.Cleanup(func() { l.cancel(); l.wg.Wait() })
	return l
}

func (l *testLater) Go(work func(context.Context)) bool {
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		work(l.ctx)
	}()
	return true
}

func (l *testLater) Deliver(r hooks.LateResult) { l.got <- r }

// next waits for a delivery; the bound only keeps a broken build from
// hanging the run.
func (l *testLater) next(t *testing.T) hooks.LateResult {
	t.Helper()
	select {
	case r := <-l.got:
		return r
	case <-time.After(60 * time.Second):
		t.Fatal("no background hook reported")
		return hooks.LateResult{}
	}
}

// asyncHooksJSON declares each command as an async hook on event.
func asyncHooksJSON(event string, commands ...string) string {
	var hs []map[string]any
	for _, c := range commands {
		hs = append(hs, map[string]any{"type": "command", "command": c, "async": true})
	}
	b, _ := json.Marshal(map[string]any{"hooks": map[string]any{event: []any{map[string]any{"hooks": hs}}}})
	return string(b)
}

// TestAsyncHooksRunEightAtATime: Codex runs an async hook in the
// background (the call returns while it waits), at most eight of one
// session at once: the ninth starts only once one of the first eight
// ended. Their additionalContext reaches the session.
func TestAsyncHooksRunEightAtATime(t *testing.T) {
	e := newEnv(t, envOpts{})
	dir := t.TempDir()
	log, gate := filepath.Join(dir, "log"), filepath.Join(dir, "gate")
	hook := `cat >/dev/null; echo start >> "` + log + `"; i=0; while [ ! -e "` + gate + `" ]; do i=$((i+1)); [ $i -gt 3000 ] && exit 1; sleep 0.02; done; ` +
		`echo end >> "` + log + `"; echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"checked"}}'`
	var cmds []string
	for i := range 9 {
		cmds = append(cmds, hook+" # "+string(rune('a'+i)))
	}
	writeFile(t, e.userFile(), asyncHooksJSON("PostToolUse", cmds...))
	later := newTestLater(t)
	in := e.baseInput(hooks.PostToolUse)
	in.Later = later
	d, failures := e.run(in)
	if len(d.AdditionalContext) > 0 || len(failures) > 0 {
		t.Fatalf("the call waited for its async hooks: %+v %v", d, failures)
	}
	starts := func() int {
		data, _ := os.ReadFile(log)
		return strings.Count(string(data), "start")
	}
	for i := 0; starts() < 8; i++ {
		if i > 6000 {
			t.Fatalf("only %d async hooks started", starts())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := starts(); n != 8 {
		t.Fatalf("%d async hooks run at once, want at most 8", n)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for range 9 {
		r := later.next(t)
		if r.Failure != "" || len(r.Context) != 1 || !strings.HasSuffix(r.Context[0], "\nchecked") {
			t.Fatalf("delivery = %+v", r)
		}
	}
	data, _ := os.ReadFile(log)
	lines := strings.Fields(string(data))
	if first := strings.Index(strings.Join(lines, " "), "end"); first < 0 || strings.LastIndex(strings.Join(lines, " "), "start") < first {
		t.Fatalf("the ninth hook started before any ended: %q", lines)
	}
}
