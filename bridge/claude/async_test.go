package claude

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/hooks"
)

// testLater is a session's hooks.Later for tests: it owns the background
// work until close, and hands each delivery to got.
type testLater struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	got    chan hooks.LateResult
}

func newTestLater(t *testing.T) *testLater {
	ctx, cancel := context.WithCancel(context.Background())
	l := &testLater{ctx: ctx, cancel: cancel, got: make(chan hooks.LateResult, 64)}
	t.Cleanup(l.close)
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

func (l *testLater) close() {
	l.cancel()
	l.wg.Wait()
}

// next waits for the next delivery. The bound only keeps a broken build
// from hanging the run; it measures nothing.
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

// waitFile waits until path exists (a hook created it).
func waitFile(t *testing.T, path string) {
	t.Helper()
	for i := 0; i < 6000; i++ {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never appeared", path)
}

// TestAsyncHookRunsInTheBackground: the seam call returns while its async
// hook still waits for a file the test creates only afterwards, the
// synchronous hook beside it still decides, and the async hook's
// additionalContext and systemMessage arrive later, for the model.
// Before async hooks ran in the background the call waited for the hook,
// which gave up without the file, and nothing arrived.
func TestAsyncHookRunsInTheBackground(t *testing.T) {
	dir := t.TempDir()
	gate := filepath.Join(dir, "gate")
	async := `cat >/dev/null; i=0; while [ ! -e "` + gate + `" ]; do i=$((i+1)); [ $i -gt 300 ] && exit 1; sleep 0.02; done; ` +
		`echo '{"systemMessage":"lint clean","continue":false,"decision":"block","reason":"no","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"tests passed"}}'`
	b := bridgeWith(t, hooks.PostToolUse,
		hookSpec{Type: "command", Async: true, Command: async},
		cmd(`cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"sync says hi"}}'`))
	later := newTestLater(t)
	in := inputFor(hooks.PostToolUse, dir)
	in.Later = later
	d, err := b.Run(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if d.Block || d.StopTurn || len(d.SystemMessages) > 0 || strings.Join(d.AdditionalContext, "|") != "sync says hi" {
		t.Fatalf("the call's decision took the async hook's output: %+v", d)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := later.next(t)
	if r.Event != hooks.PostToolUse || r.Wake || r.Failure != "" || !strings.Contains(r.Hook, "claude hook") {
		t.Fatalf("delivery = %+v", r)
	}
	if len(r.Context) != 2 || !strings.HasSuffix(r.Context[0], "\ntests passed") || !strings.HasSuffix(r.Context[1], "\nlint clean") ||
		!strings.Contains(r.Context[0], "PostToolUse hook") {
		t.Fatalf("context = %q", r.Context)
	}
}

// TestAsyncRewake: an asyncRewake hook that exits 2 wakes the model with
// its stderr (stdout when stderr is empty); one that exits 0 says nothing,
// even with JSON output.
func TestAsyncRewake(t *testing.T) {
	for _, c := range []struct {
		name, command string
		wake          bool
		want          string
	}{
		{"stderr", `cat >/dev/null; echo out; echo 'build broke' >&2; exit 2`, true, "build broke"},
		{"stdout when stderr is empty", `cat >/dev/null; echo 'look at me'; exit 2`, true, "look at me"},
		{"exit 0", `cat >/dev/null; echo '{"systemMessage":"m","hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"c"}}'`, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := bridgeWith(t, hooks.Stop, hookSpec{Type: "command", Rewake: true, Command: c.command})
			later := newTestLater(t)
			in := inputFor(hooks.Stop, t.TempDir())
			in.Later = later
			d, err := b.Run(context.Background(), in)
			if err != nil || d.Block {
				t.Fatalf("decision %+v, err %v", d, err)
			}
			r := later.next(t)
			if r.Wake != c.wake || strings.Join(r.Context, "") == "" != (c.want == "") || !strings.HasSuffix(strings.Join(r.Context, ""), c.want) {
				t.Fatalf("delivery = %+v, want wake=%v context %q", r, c.wake, c.want)
			}
		})
	}
}

// TestAsyncHookKilledWhenSessionCloses: closing the session (its Later)
// kills a background hook's whole process group, and nothing is
// delivered.
func TestAsyncHookKilledWhenSessionCloses(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	b := bridgeWith(t, hooks.UserPromptSubmit, hookSpec{Type: "command", Async: true,
		Command: `cat >/dev/null; sleep 1000 & echo $! > "` + pidFile + `.tmp"; mv "` + pidFile + `.tmp" "` + pidFile + `"; wait`})
	later := newTestLater(t)
	in := inputFor(hooks.UserPromptSubmit, dir)
	in.Later = later
	if _, err := b.Run(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	waitFile(t, pidFile)
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	later.close()
	if err := syscall.Kill(pid, 0); err == nil {
		t.Fatalf("the hook's child %d outlived the session", pid)
	}
	select {
	case r := <-later.got:
		t.Fatalf("delivered after close: %+v", r)
	default:
	}
}

// TestAsyncHooksAreNotDeduplicatedAcrossFirings: each firing runs the
// hook again (Claude Code deduplicates identical handlers within one
// firing only).
func TestAsyncHooksAreNotDeduplicatedAcrossFirings(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "runs")
	hook := hookSpec{Type: "command", Async: true, Command: `cat >/dev/null; echo run >> "` + log + `"`}
	b := bridgeWith(t, hooks.PostToolUse, hook, hook)
	later := newTestLater(t)
	for range 2 {
		in := inputFor(hooks.PostToolUse, dir)
		in.Later = later
		if _, err := b.Run(context.Background(), in); err != nil {
			t.Fatal(err)
		}
	}
	later.next(t)
	later.next(t)
	later.close()
	data, _ := os.ReadFile(log)
	if got := strings.Count(string(data), "run"); got != 2 {
		t.Fatalf("ran %d times, want 2 (once per firing)", got)
	}
}
