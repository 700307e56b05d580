//go:build linux

package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// groupGone reports whether no process (zombies included) is left in the
// process group.
func groupGone(pgid int) bool {
	return errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
}

// parsePids reads "<shell pid> <background pid>" from the start of s.
func parsePids(t *testing.T, s string) (pgid, bg int) {
	t.Helper()
	if _, err := fmt.Sscanf(s, "%d %d", &pgid, &bg); err != nil || pgid <= 0 || bg <= 0 {
		t.Fatalf("no pids in %q", s)
	}
	return pgid, bg
}

// checkAllGone checks that the shell's group and its background child (which
// would survive if the command had not had a group of its own) are gone.
func checkAllGone(t *testing.T, pgid, bg int) {
	t.Helper()
	if !groupGone(pgid) {
		t.Errorf("process group %d still exists after the call", pgid)
	}
	if !errors.Is(syscall.Kill(bg, 0), syscall.ESRCH) {
		t.Errorf("background process %d still exists after the call", bg)
	}
}

func TestBashTimeoutKillsTheGroup(t *testing.T) {
	env := newEnv(t)
	res := run(t, env, "Bash", map[string]any{
		"command": "sleep 100 & echo $$ $!; sleep 100; wait",
		"timeout": 1000,
	})
	pgid, bg := parsePids(t, res.Text)
	want := fmt.Sprintf("%d %d\nCommand timed out after 1s and was killed.", pgid, bg)
	if res.Text != want || !res.IsError {
		t.Errorf("got %q (error %v), want %q", res.Text, res.IsError, want)
	}
	checkAllGone(t, pgid, bg)
}

func TestBashCancellationKillsTheGroup(t *testing.T) {
	env := newEnv(t)
	fifo := filepath.Join(env.Cwd, "ready")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pids := make(chan string, 1)
	go func() {
		// Opening the FIFO waits for the command to write its pids.
		b, _ := os.ReadFile(fifo)
		pids <- string(b)
		cancel()
	}()
	res := runCtx(t, ctx, env, "Bash", map[string]any{
		"command": fmt.Sprintf("sleep 100 & echo started; echo $$ $! > %s; sleep 100; wait", fifo),
	})
	pgid, bg := parsePids(t, <-pids)
	if want := "started\nCommand was cancelled and killed."; res.Text != want || !res.IsError {
		t.Errorf("got %q (error %v), want %q", res.Text, res.IsError, want)
	}
	checkAllGone(t, pgid, bg)
}

func TestBashKillsLeftoverBackgroundJobs(t *testing.T) {
	env := newEnv(t)
	res := run(t, env, "Bash", map[string]any{"command": "sleep 100 & echo $$ $!"})
	if res.IsError {
		t.Fatalf("%+v", res)
	}
	pgid, bg := parsePids(t, res.Text)
	checkAllGone(t, pgid, bg)
}

// TestBashNeverWritesOurStdout points file descriptor 1 of the test process
// at a file while a command writes to every output it has.
func TestBashRunsInItsOwnProcessGroup(t *testing.T) {
	env := newEnv(t)
	// Field 5 of /proc/<pid>/stat is the process group id.
	res := run(t, env, "Bash", map[string]any{"command": `[ "$(cut -d' ' -f5 /proc/$$/stat)" = "$$" ] && echo leader`})
	if res.Text != "leader" {
		t.Errorf("%+v", res)
	}
}

func TestBashNeverWritesOurStdout(t *testing.T) {
	env := newEnv(t)
	f, err := os.Create(filepath.Join(t.TempDir(), "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	saved, err := syscall.Dup(1)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Dup3(int(f.Fd()), 1, 0); err != nil {
		t.Fatal(err)
	}
	res := run(t, env, "Bash", map[string]any{
		"command": "echo to-stdout; echo to-stderr >&2; echo to-dev-stdout >/dev/stdout; (echo from-child &); wait",
	})
	if err := syscall.Dup3(saved, 1, 0); err != nil {
		t.Fatal(err)
	}
	syscall.Close(saved)
	leaked, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if len(leaked) != 0 {
		t.Errorf("the command wrote %q to the test's stdout", leaked)
	}
	for _, w := range []string{"to-stdout", "to-stderr", "to-dev-stdout"} {
		if !strings.Contains(res.Text, w) {
			t.Errorf("output %q lacks %q", res.Text, w)
		}
	}
}
