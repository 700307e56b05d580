package proc

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
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func sh(script string) Cmd {
	return Cmd{Path: "/bin/sh", Args: []string{"-c", script}}
}

func groupGone(pgid int) bool {
	return errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		cmd  Cmd
		want Result
	}{
		{"combined output and exit code", sh("echo out; echo err >&2; exit 4"),
			Result{Output: "out\nerr\n", ExitCode: 4}},
		{"split stderr", Cmd{Path: "/bin/sh", Args: []string{"-c", "echo out; echo err >&2"}, SplitStderr: true},
			Result{Output: "out\n", Stderr: "err\n"}},
		{"stdin is written then closed", Cmd{Path: "/bin/sh", Args: []string{"-c", "cat; echo ."}, Stdin: []byte("input\n")},
			Result{Output: "input\n.\n"}},
		{"no stdin reads /dev/null", sh("cat; echo eof"), Result{Output: "eof\n"}},
		{"dir and env", Cmd{Path: "/bin/sh", Args: []string{"-c", "pwd; echo $X"}, Dir: dir, Env: []string{"X=y"}},
			Result{Output: dir + "\ny\n"}},
		{"signal", sh("kill -TERM $$"), Result{ExitCode: -1, Signal: "SIGTERM"}},
		{"cap", Cmd{Path: "/bin/sh", Args: []string{"-c", "printf 0123456789"}, OutputLimit: 4},
			Result{Output: "01\n... [6 bytes omitted] ...\n89", Omitted: 6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Run(context.Background(), tt.cmd)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunStartError(t *testing.T) {
	got := Run(context.Background(), Cmd{Path: filepath.Join(t.TempDir(), "missing")})
	if got.Err == nil || got.ExitCode != -1 {
		t.Errorf("%+v", got)
	}
}

func TestRunCanceledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got := Run(ctx, sh("echo never"))
	if !got.Canceled || got.Output != "" || !errors.Is(got.Err, context.Canceled) {
		t.Errorf("%+v", got)
	}
}

// pgidOf reads the shell's pid (its process group id) from the first line of
// the output.
func pgidOf(t *testing.T, out string) int {
	t.Helper()
	first, _, _ := strings.Cut(out, "\n")
	n, err := strconv.Atoi(first)
	if err != nil {
		t.Fatalf("no pgid in %q", out)
	}
	return n
}

func TestRunTimeoutKillsTheGroup(t *testing.T) {
	got := Run(context.Background(), Cmd{
		Path:    "/bin/sh",
		Args:    []string{"-c", "echo $$; sleep 100 & sleep 100; wait"},
		Timeout: 300 * time.Millisecond,
	})
	pgid := pgidOf(t, got.Output)
	if !got.TimedOut || got.Canceled || got.Signal != "SIGTERM" {
		t.Errorf("%+v", got)
	}
	if !groupGone(pgid) {
		t.Errorf("group %d survived", pgid)
	}
}

// TestRunEscalatesToSIGKILL runs a group that ignores SIGTERM.
func TestRunEscalatesToSIGKILL(t *testing.T) {
	got := Run(context.Background(), Cmd{
		Path:    "/bin/sh",
		Args:    []string{"-c", "trap '' TERM; echo $$; sleep 100 & sleep 100; wait"},
		Timeout: 300 * time.Millisecond,
		Grace:   50 * time.Millisecond,
	})
	pgid := pgidOf(t, got.Output)
	if !got.TimedOut || got.Signal != "SIGKILL" {
		t.Errorf("%+v", got)
	}
	if !groupGone(pgid) {
		t.Errorf("group %d survived", pgid)
	}
}

func TestRunCancelKillsTheGroup(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "ready")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		b, _ := os.ReadFile(fifo) // returns once the command has written
		_ = b
		cancel()
	}()
	got := Run(ctx, sh(fmt.Sprintf("echo $$; echo x > %s; sleep 100 & sleep 100; wait", fifo)))
	pgid := pgidOf(t, got.Output)
	if !got.Canceled || got.TimedOut {
		t.Errorf("%+v", got)
	}
	if !groupGone(pgid) {
		t.Errorf("group %d survived", pgid)
	}
}

func TestRunKillsLeftovers(t *testing.T) {
	// The background job keeps the output pipe open; Run must not wait
	// for it to end on its own.
	got := Run(context.Background(), sh("echo $$; sleep 100 &"))
	pgid := pgidOf(t, got.Output)
	if got.ExitCode != 0 || got.TimedOut || got.Canceled {
		t.Errorf("%+v", got)
	}
	if !groupGone(pgid) {
		t.Errorf("group %d survived", pgid)
	}
}

// TestRunDoesNotWaitForEscapees: a process that leaves the group (setsid)
// and keeps the output open delays Run by the grace period only.
func TestRunDoesNotWaitForEscapees(t *testing.T) {
	if _, err := os.Stat("/usr/bin/setsid"); err != nil {
		t.Skip("no setsid")
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	got := Run(context.Background(), Cmd{
		Path:  "/bin/sh",
		Args:  []string{"-c", fmt.Sprintf("setsid -f sh -c 'echo $$ > %s; exec sleep 100'; echo done", pidFile)},
		Grace: 50 * time.Millisecond,
	})
	if b, err := os.ReadFile(pidFile); err == nil {
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if got.Output != "done\n" || got.ExitCode != 0 {
		t.Errorf("%+v", got)
	}
}
