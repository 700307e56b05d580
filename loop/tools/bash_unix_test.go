//go:build linux

package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// groupGone reports whether no process (zombies included) is left in the
// process group.
func groupGone(pgid int) bool {
	return errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
}

func TestBashTimeoutKillsTheGroup(t *testing.T) {
	env := newEnv(t)
	res := run(t, env, "Bash", map[string]any{
		"command": "echo $$; sleep 100 & sleep 100; wait",
		"timeout": 1000,
	})
	first, _, _ := strings.Cut(res.Text, "\n")
	pgid, err := strconv.Atoi(first)
	if err != nil {
		t.Fatalf("no pgid in the output: %q", res.Text)
	}
	want := fmt.Sprintf("%d\nCommand timed out after 1s and was killed.", pgid)
	if res.Text != want || !res.IsError {
		t.Errorf("got %q (error %v), want %q", res.Text, res.IsError, want)
	}
	if !groupGone(pgid) {
		t.Errorf("process group %d still exists after the call", pgid)
	}
}

func TestBashCancellationKillsTheGroup(t *testing.T) {
	env := newEnv(t)
	fifo := filepath.Join(env.Cwd, "ready")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pgidc := make(chan int, 1)
	go func() {
		// Opening the FIFO waits for the command to write its pgid.
		b, _ := os.ReadFile(fifo)
		n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		pgidc <- n
		cancel()
	}()
	res := runCtx(t, ctx, env, "Bash", map[string]any{
		"command": fmt.Sprintf("echo started; echo $$ > %s; sleep 100 & sleep 100; wait", fifo),
	})
	pgid := <-pgidc
	if pgid <= 0 {
		t.Fatalf("bad pgid %d", pgid)
	}
	if want := "started\nCommand was cancelled and killed."; res.Text != want || !res.IsError {
		t.Errorf("got %q (error %v), want %q", res.Text, res.IsError, want)
	}
	if !groupGone(pgid) {
		t.Errorf("process group %d still exists after the call", pgid)
	}
}

func TestBashKillsLeftoverBackgroundJobs(t *testing.T) {
	env := newEnv(t)
	res := run(t, env, "Bash", map[string]any{"command": "sleep 100 & echo $$"})
	pgid, err := strconv.Atoi(res.Text)
	if err != nil || res.IsError {
		t.Fatalf("%+v", res)
	}
	if !groupGone(pgid) {
		t.Errorf("process group %d still exists after the call", pgid)
	}
}

// TestBashNeverWritesOurStdout points file descriptor 1 of the test process
// at a file while a command writes to every output it has.
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
