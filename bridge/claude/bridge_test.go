package claude

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cordis-agent/cordis/hooks"
)

// TestThroughPipeline runs the bridge as the loop sees it: registered on a
// hooks.Pipeline, called through hooks.Seams.
func TestThroughPipeline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hooks.json")
	writeSettings(t, path, map[hooks.Event][]groupSpec{
		hooks.PreToolUse: {
			{Matcher: "Bash", Hooks: []hookSpec{cmd(`cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"confirm rm"}}'`)}},
			{Matcher: "Write", Hooks: []hookSpec{cmd("exit 2")}},
		},
		hooks.Stop: {{Hooks: []hookSpec{cmd(filepath.Join(testdataDir(t), "exit2.sh"))}}},
	})
	p := hooks.NewPipeline()
	New(Config{Path: path}, Options{}).Register(p)
	var seams hooks.Seams = p

	var records []string
	in := inputFor(hooks.PreToolUse, t.TempDir())
	in.Record = func(typ string, data any) { records = append(records, typ) }
	d := seams.Run(context.Background(), in)
	if d.Permission != hooks.Ask || d.Reason != "confirm rm" {
		t.Fatalf("PreToolUse: %+v", d)
	}
	if len(records) == 0 {
		t.Fatal("the pipeline recorded nothing")
	}
	d = seams.Run(context.Background(), inputFor(hooks.Stop, t.TempDir()))
	if !d.Block || d.Reason != "blocked by stderr" {
		t.Fatalf("Stop: %+v", d)
	}
	d = seams.Run(context.Background(), inputFor(hooks.SessionStart, t.TempDir()))
	if !isZero(d) {
		t.Fatalf("SessionStart: %+v", d)
	}
}

// TestHookStdoutNeverReachesOurStdout swaps the process's stdout for a
// pipe while hooks print, and checks nothing arrives there.
func TestHookStdoutNeverReachesOurStdout(t *testing.T) {
	b := bridgeWith(t, hooks.UserPromptSubmit,
		cmd("cat >/dev/null; echo to-stdout; echo to-stderr >&2; echo direct >/dev/stdout"),
		cmd(filepath.Join(testdataDir(t), "loud.sh")))
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = w
	leaked := make(chan int)
	go func() {
		n := 0
		buf := make([]byte, 4096)
		for {
			k, err := r.Read(buf)
			n += k
			if err != nil {
				leaked <- n
				return
			}
		}
	}()
	d, runErr := b.Run(context.Background(), inputFor(hooks.UserPromptSubmit, t.TempDir()))
	os.Stdout = saved
	w.Close()
	if n := <-leaked; n != 0 {
		t.Fatalf("%d bytes of hook output reached our stdout", n)
	}
	if runErr != nil || len(d.AdditionalContext) != 2 || d.AdditionalContext[0] != "to-stdout\ndirect" {
		t.Fatalf("got %q, %v", d.AdditionalContext[:1], runErr)
	}
}

func TestCancelKillsHooks(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "pid")
	b := bridgeWith(t, hooks.PreToolUse, cmd("echo $$ > "+marker+"; exec sleep 60"))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	var rec recorded
	d, err := b.Run(ctx, rec.input(inputFor(hooks.PreToolUse, t.TempDir())))
	if time.Since(start) > 10*time.Second {
		t.Fatal("cancel did not stop the hook")
	}
	if err != nil || len(rec.failures) != 1 || !strings.Contains(rec.failures[0].Error, "cancelled") || !isZero(d) {
		t.Fatalf("got %+v, %v, %+v", d, err, rec.failures)
	}
}

// TestConcurrentSessions runs many sessions' hooks at once on one Bridge.
func TestConcurrentSessions(t *testing.T) {
	home := t.TempDir()
	writeSettings(t, filepath.Join(home, ".claude", "settings.json"), map[hooks.Event][]groupSpec{
		hooks.UserPromptSubmit: {{Hooks: []hookSpec{cmd(`cat >/dev/null; printf '%s' "$(basename "$CLAUDE_PROJECT_DIR")"`)}}},
	})
	b, _ := standardBridge(t, home)
	var wg sync.WaitGroup
	for i := range 8 {
		cwd := filepath.Join(t.TempDir(), fmt.Sprintf("proj%d", i))
		os.MkdirAll(cwd, 0o755)
		writeSettings(t, filepath.Join(cwd, ".claude", "settings.json"), map[hooks.Event][]groupSpec{hooks.UserPromptSubmit: echoGroup(fmt.Sprintf("own%d", i))})
		trustProject(t, b, cwd)
		wg.Go(func() {
			d, err := b.Run(context.Background(), inputFor(hooks.UserPromptSubmit, cwd))
			want := []string{fmt.Sprintf("proj%d", i), fmt.Sprintf("own%d", i)}
			if diff := cmp.Diff(want, d.AdditionalContext); diff != "" || err != nil {
				t.Errorf("session %d (-want +got):\n%s %v", i, diff, err)
			}
		})
	}
	wg.Wait()
}

// BenchmarkToolCallOverhead compares one PreToolUse through the bridge
// with a single no-op hook (`true`) against spawning `sh -c true`
// directly; the ratio is reported as bridge/direct.
func BenchmarkToolCallOverhead(b *testing.B) { benchmarkToolCallOverhead(b) }

// BenchmarkToolCallOverheadBesideChild is the same with a long-lived child
// of the agent running, as an MCP server is: after every command the agent
// then has to list its children to find orphans to reap.
func BenchmarkToolCallOverheadBesideChild(b *testing.B) {
	server := exec.Command("sleep", "600")
	if err := server.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { server.Process.Kill(); server.Wait() })
	benchmarkToolCallOverhead(b)
}

func benchmarkToolCallOverhead(b *testing.B) {
	bridge := bridgeWith(b, hooks.PreToolUse, cmd("true"))
	in := inputFor(hooks.PreToolUse, b.TempDir())
	var direct, viaBridge time.Duration
	n := 0
	for b.Loop() {
		start := time.Now()
		if err := exec.Command("sh", "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
		direct += time.Since(start)
		start = time.Now()
		if _, err := bridge.Run(context.Background(), in); err != nil {
			b.Fatal(err)
		}
		viaBridge += time.Since(start)
		n++
	}
	b.ReportMetric(float64(direct.Microseconds())/float64(n), "direct-µs/op")
	b.ReportMetric(float64(viaBridge.Microseconds())/float64(n), "bridge-µs/op")
	b.ReportMetric(float64(viaBridge)/float64(direct), "ratio")
}
