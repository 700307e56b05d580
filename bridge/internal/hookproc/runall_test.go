package hookproc

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// barrier returns a command that registers itself in dir and then waits
// until n commands have registered there (registrations are never
// removed). Only commands running at the same time can meet: a command
// whose peers cannot start before it ends waits until its timeout.
func barrier(dir string, i, n int) string {
	return fmt.Sprintf(`mkdir %q/%d; until set -- %q/*; [ $# -ge %d ]; do sleep 0.02; done`, dir, i, dir, n)
}

// withMaxParallel runs the test with RunAll's bound set to n.
func withMaxParallel(t *testing.T, n int) {
	saved := maxParallel
	maxParallel = n
	t.Cleanup(func() { maxParallel = saved })
}

// TestRunAllBoundsConcurrency: of maxParallel+1 commands that each wait
// for all of them to run at once, the first maxParallel can never meet the
// last, which is queued until one of them ends: they time out. Unbounded,
// all would meet and exit 0. The last one waited a whole timeout in the
// queue and still runs to its end: its clock starts with its process.
func TestRunAllBoundsConcurrency(t *testing.T) {
	if maxParallel < 4 || maxParallel > 32 {
		t.Fatalf("maxParallel = %d, want 4×GOMAXPROCS within [4, 32]", maxParallel)
	}
	dir := t.TempDir()
	n := maxParallel + 1
	// The last command waits out the others' timeout in the queue, longer
	// than its own: counted from the queue, it would time out at once;
	// counted from its start, it has seconds for a shell and a mkdir,
	// even on a loaded machine.
	const timeout, lastTimeout = 6 * time.Second, 5 * time.Second
	cmds := make([]Command, n)
	for i := range cmds {
		cmds[i] = Command{Command: barrier(dir, i, n), Timeout: timeout, Grace: 100 * time.Millisecond}
	}
	cmds[n-1].Timeout = lastTimeout
	res := RunAll(context.Background(), cmds, false)
	for i, r := range res[:n-1] {
		if !r.TimedOut {
			t.Errorf("command %d met all %d commands at once (%+v): more than maxParallel = %d ran together", i, n, r, maxParallel)
		}
	}
	if last := res[n-1]; !last.Exited() || last.ExitCode != 0 {
		t.Errorf("the queued command: %+v (%s); want exit 0: its timeout must count from its start, not from when it was queued", last, last.Failure())
	}
}

// TestRunAllRunsInParallel: maxParallel commands that each wait for all of
// them to have started only end if they all run at once. Serial, the first
// would wait forever; ctx's deadline only ends such a failing run.
func TestRunAllRunsInParallel(t *testing.T) {
	dir := t.TempDir()
	n := maxParallel
	cmds := make([]Command, n)
	for i := range cmds {
		cmds[i] = Command{Command: barrier(dir, i, n), Grace: 100 * time.Millisecond}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i, r := range RunAll(ctx, cmds, false) {
		if !r.Exited() || r.ExitCode != 0 {
			t.Errorf("command %d: %+v (%s): the %d commands did not all run at once", i, r, r.Failure(), n)
		}
	}
}

// TestRunAllQueuedTimeoutStartsAtStart: with one slot, the second command
// waits for the first to time out; its own, equal, timeout is not spent
// by that wait.
func TestRunAllQueuedTimeoutStartsAtStart(t *testing.T) {
	withMaxParallel(t, 1)
	res := RunAll(context.Background(), []Command{
		{Command: "sleep 60", Timeout: time.Second, Grace: 100 * time.Millisecond},
		{Command: "echo guard", Timeout: time.Second},
	}, false)
	if !res[0].TimedOut {
		t.Fatalf("first: %+v", res[0])
	}
	if res[1].TimedOut || res[1].Stdout != "guard\n" {
		t.Errorf("queued command: %+v (%s)", res[1], res[1].Failure())
	}
}

// TestRunAllCancelStopsQueued: cancelling ctx kills the running command
// and never starts the queued ones.
func TestRunAllCancelStopsQueued(t *testing.T) {
	withMaxParallel(t, 1)
	dir := t.TempDir()
	started := func(i int) string { return filepath.Join(dir, fmt.Sprint(i)) }
	cmds := []Command{{Command: fmt.Sprintf("touch %q; sleep 60", started(0)), Grace: 100 * time.Millisecond}}
	for i := 1; i <= 3; i++ {
		cmds = append(cmds, Command{Command: fmt.Sprintf("touch %q", started(i))})
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for {
			if _, err := os.Stat(started(0)); err == nil {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	res := RunAll(ctx, cmds, false)
	if !res[0].Canceled {
		t.Errorf("running command: %+v", res[0])
	}
	for i := 1; i <= 3; i++ {
		if !res[i].Canceled || res[i].Err == nil || res[i].Failure() != "cancelled" {
			t.Errorf("queued command %d: %+v", i, res[i])
		}
		if _, err := os.Stat(started(i)); err == nil {
			t.Errorf("queued command %d started after the cancellation", i)
		}
	}
}

// TestRunAllThousandsOfHooksKeepTheGuard: 3,000 trivial hooks and one deny
// guard, under a descriptor limit that the bounded runner fits in many
// times over and that 3,000 processes started at once would exhaust: every
// hook starts ("too many open files" is an Err) and the guard's exit 2
// holds, its timeout unspent by the wait for a slot.
func TestRunAllThousandsOfHooksKeepTheGuard(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 3,000 processes")
	}
	var saved syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &saved); err != nil {
		t.Skip("no RLIMIT_NOFILE:", err)
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("cannot count open descriptors:", err)
	}
	// Each running hook holds well under 16 descriptors.
	limit := syscall.Rlimit{Cur: uint64(len(fds) + 16*maxParallel + 64), Max: saved.Max}
	if limit.Cur > saved.Cur {
		t.Skipf("the soft limit (%d) is already below what the test needs (%d)", saved.Cur, limit.Cur)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &limit); err != nil {
		t.Skip("cannot lower RLIMIT_NOFILE:", err)
	}
	t.Cleanup(func() { syscall.Setrlimit(syscall.RLIMIT_NOFILE, &saved) })

	const trivial = 3000
	cmds := make([]Command, 0, trivial+1)
	for i := range trivial {
		cmds = append(cmds, Command{Command: fmt.Sprintf("exit 0 # %d", i), Stdin: []byte(`{"tool_name":"Bash"}`)})
	}
	cmds = append(cmds, Command{Command: `cat >/dev/null; echo "rm -rf is not allowed" >&2; exit 2`, Stdin: []byte(`{"tool_name":"Bash"}`), Timeout: 5 * time.Second})
	res := RunAll(context.Background(), cmds, false)
	var failed []string
	for i, r := range res[:trivial] {
		if !r.Exited() || r.ExitCode != 0 {
			failed = append(failed, fmt.Sprintf("%d: %s", i, r.Failure()))
		}
	}
	if len(failed) > 0 {
		t.Errorf("%d of %d trivial hooks failed, e.g. %s", len(failed), trivial, strings.Join(failed[:min(3, len(failed))], "; "))
	}
	if g := res[trivial]; !g.Exited() || g.ExitCode != 2 || g.Stderr != "rm -rf is not allowed\n" {
		t.Errorf("the guard: %+v (%s); want its exit 2", g, g.Failure())
	}
}

func TestNotRun(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		ctx     context.Context
		command Command
		want    string
	}{
		{context.Background(), Command{Command: "exit 0"}, ""},
		{context.Background(), Command{Command: "exit 1"}, ""},
		{context.Background(), Command{Command: "exit 2"}, ""},
		{context.Background(), Command{Command: "/nonexistent/guard.py"}, "its program was not found (exit status 127)"},
		{context.Background(), Command{Command: "exit 126"}, "its program could not be executed (exit status 126)"},
		{context.Background(), Command{Command: `sh -c 'kill -9 $$'`}, "killed by signal 9 (exit status 137)"},
		{context.Background(), Command{Command: "kill -9 $$"}, "killed by SIGKILL"},
		{context.Background(), Command{Command: "sleep 60", Timeout: 100 * time.Millisecond, Grace: 100 * time.Millisecond}, "timed out after 100ms"},
		{context.Background(), Command{Shell: []string{"/nonexistent/sh", "-c"}, Command: "true"}, "could not start: "},
		{cancelled, Command{Command: "true"}, ""},
	} {
		r := Run(c.ctx, c.command)
		if got := r.NotRun(); c.want == "" && got != "" || !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: NotRun() = %q, want %q", c.command.Command, got, c.want)
		}
	}
}
