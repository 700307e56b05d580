package hookproc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRunExitStdinEnv(t *testing.T) {
	dir := t.TempDir()
	res := Run(context.Background(), Command{
		Command: `cat; printf '|%s|%s|' "$HOOKPROC_X" "$(pwd)"; echo oops >&2; exit 3`,
		Dir:     dir,
		Env:     []string{"HOOKPROC_X=extra"},
		Stdin:   []byte(`{"a":1}`),
	})
	want := `{"a":1}|extra|` + dir + `|`
	if res.Stdout != want || res.Stderr != "oops\n" || res.ExitCode != 3 || !res.Exited() {
		t.Fatalf("got %+v, want stdout %q", res, want)
	}
	if res.Failure() != "" {
		t.Errorf("Failure() = %q", res.Failure())
	}
}

func TestRunEnvOverridesInherited(t *testing.T) {
	t.Setenv("HOOKPROC_Y", "inherited")
	res := Run(context.Background(), Command{Command: `printf %s "$HOOKPROC_Y"`})
	if res.Stdout != "inherited" {
		t.Fatalf("inherited env: %q", res.Stdout)
	}
	res = Run(context.Background(), Command{Command: `printf %s "$HOOKPROC_Y"`, Env: []string{"HOOKPROC_Y=mine"}})
	if res.Stdout != "mine" {
		t.Fatalf("override: %q", res.Stdout)
	}
}

func TestRunStartError(t *testing.T) {
	res := Run(context.Background(), Command{Shell: []string{"/nonexistent/interpreter", "-c"}, Command: "true"})
	if res.Err == nil || res.Exited() || res.ExitCode != -1 {
		t.Fatalf("got %+v", res)
	}
	if !strings.HasPrefix(res.Failure(), "could not start") {
		t.Errorf("Failure() = %q", res.Failure())
	}
	// A missing program inside the shell is the shell's exit 127.
	res = Run(context.Background(), Command{Command: "/nonexistent/python3 x.py"})
	if res.ExitCode != 127 || !res.Exited() {
		t.Fatalf("got %+v", res)
	}
}

func TestRunSignal(t *testing.T) {
	res := Run(context.Background(), Command{Command: "kill -9 $$"})
	if res.Signal != "SIGKILL" || res.Exited() || res.ExitCode != -1 {
		t.Fatalf("got %+v", res)
	}
	if res.Failure() != "killed by SIGKILL" {
		t.Errorf("Failure() = %q", res.Failure())
	}
}

func groupGone(t *testing.T, pgid int) {
	t.Helper()
	if err := syscall.Kill(-pgid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("kill(-%d, 0) = %v, want ESRCH: the group outlived Run", pgid, err)
	}
}

// pgidOf reads the group id the command wrote to a file.
func pgidOf(t *testing.T, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestRunTimeoutKillsGroup(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pid")
	start := time.Now()
	// The shell ignores SIGTERM and so does its background child: only the
	// SIGKILL after Grace ends them.
	res := Run(context.Background(), Command{
		Command: `trap '' TERM; echo $$ > ` + file + `; sleep 60 & sleep 60; echo never`,
		Timeout: 200 * time.Millisecond,
		Grace:   200 * time.Millisecond,
	})
	if !res.TimedOut || res.Exited() || res.Canceled {
		t.Fatalf("got %+v", res)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Run took %s", d)
	}
	if !strings.HasPrefix(res.Failure(), "timed out") {
		t.Errorf("Failure() = %q", res.Failure())
	}
	groupGone(t, pgidOf(t, file))
}

func TestRunLeftoverKilledAfterNormalExit(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pid")
	res := Run(context.Background(), Command{Command: `echo $$ > ` + file + `; sleep 60 & echo done`})
	if res.ExitCode != 0 || res.Stdout != "done\n" {
		t.Fatalf("got %+v", res)
	}
	if res.Duration > 5*time.Second {
		t.Fatalf("waited for the leftover: %s", res.Duration)
	}
	groupGone(t, pgidOf(t, file))
}

func TestRunCancel(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	res := Run(ctx, Command{Command: `echo $$ > ` + file + `; sleep 60`, Timeout: time.Minute})
	if !res.Canceled || res.TimedOut {
		t.Fatalf("got %+v", res)
	}
	groupGone(t, pgidOf(t, file))
	res = Run(ctx, Command{Command: "true"})
	if !res.Canceled || res.Err == nil {
		t.Fatalf("already cancelled: %+v", res)
	}
}

func TestRunOutputCapped(t *testing.T) {
	// 10 MB on each stream; head and tail are kept around a marker.
	res := Run(context.Background(), Command{
		Command:     `head -c 10000000 /dev/zero | tr '\0' a; head -c 10000000 /dev/zero | tr '\0' b >&2`,
		OutputLimit: 1000,
	})
	if res.ExitCode != 0 {
		t.Fatalf("got exit %d %s", res.ExitCode, res.Failure())
	}
	capped := func(name, got string, omitted int64, c string) {
		t.Helper()
		half := strings.Repeat(c, 500)
		if !strings.HasPrefix(got, half) || !strings.HasSuffix(got, half) || len(got) > 1200 || omitted != 10000000-1000 {
			t.Fatalf("%s: %d bytes, omitted %d", name, len(got), omitted)
		}
	}
	capped("stdout", res.Stdout, res.StdoutOmitted, "a")
	capped("stderr", res.Stderr, res.StderrOmitted, "b")
	res = Run(context.Background(), Command{Command: `head -c 10000000 /dev/zero`})
	if len(res.Stdout) > DefaultOutputLimit+200 || res.StdoutOmitted != 10000000-DefaultOutputLimit {
		t.Fatalf("default cap: %d bytes, omitted %d", len(res.Stdout), res.StdoutOmitted)
	}
}

func TestRunLargeStdinNotRead(t *testing.T) {
	res := Run(context.Background(), Command{Command: "exit 0", Stdin: make([]byte, 1<<20)})
	if res.ExitCode != 0 || res.Duration > 5*time.Second {
		t.Fatalf("got %+v", res)
	}
}

// TestRunNeverWritesOurStdout runs a loud command with the test process's
// stdout redirected to a pipe and checks nothing arrives there.
func TestRunNeverWritesOurStdout(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = w
	res := Run(context.Background(), Command{Command: `echo to-stdout; echo to-stderr >&2; echo to-tty > /dev/stdout`})
	os.Stdout = saved
	w.Close()
	leaked, _ := readAll(r)
	if leaked != "" {
		t.Fatalf("hook output reached our stdout: %q", leaked)
	}
	if res.Stdout != "to-stdout\nto-tty\n" {
		t.Fatalf("captured %q", res.Stdout)
	}
}

func readAll(f *os.File) (string, error) {
	defer f.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := f.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String(), nil
		}
	}
}

func TestRunAllOrderAndDedup(t *testing.T) {
	dir := t.TempDir()
	count := filepath.Join(dir, "count")
	cmds := []Command{
		{Command: "sleep 0.3; echo first"},
		{Command: "echo second"},
		{Command: "echo x >> " + count + "; echo third"},
		{Command: "sleep 0.1; echo fourth"},
		{Command: "echo x >> " + count + "; echo third"},
	}
	// Parallelism is TestRunAllRunsInParallel's (a barrier); this test is
	// about order and deduplication.
	res := RunAll(context.Background(), cmds, true)
	var got []string
	for _, r := range res {
		got = append(got, strings.TrimSpace(r.Stdout))
	}
	if strings.Join(got, ",") != "first,second,third,fourth,third" {
		t.Fatalf("order: %v", got)
	}
	if !res[4].Duplicate || res[4].DuplicateOf != 2 || res[2].Duplicate {
		t.Fatalf("dedup marks: %+v / %+v", res[2], res[4])
	}
	b, _ := os.ReadFile(count)
	if string(b) != "x\n" {
		t.Fatalf("duplicate ran %d times", strings.Count(string(b), "x"))
	}

	// Without dedup (Codex), both run.
	os.Remove(count)
	res = RunAll(context.Background(), cmds[2:], false)
	b, _ = os.ReadFile(count)
	if string(b) != "x\nx\n" || res[2].Duplicate {
		t.Fatalf("no dedup: ran %q, %+v", b, res[2])
	}
	// Same command in another directory is not a duplicate.
	res = RunAll(context.Background(), []Command{{Command: "pwd", Dir: dir}, {Command: "pwd", Dir: "/"}}, true)
	if res[1].Duplicate || strings.TrimSpace(res[1].Stdout) != "/" {
		t.Fatalf("dir: %+v", res[1])
	}
}

func TestLoginShell(t *testing.T) {
	t.Setenv("SHELL", "")
	if got := LoginShell(); strings.Join(got, " ") != "/bin/sh -lc" {
		t.Fatalf("LoginShell() = %v", got)
	}
	t.Setenv("SHELL", "/bin/bash")
	if got := LoginShell(); strings.Join(got, " ") != "/bin/bash -lc" {
		t.Fatalf("LoginShell() = %v", got)
	}
}

func TestRunExecForm(t *testing.T) {
	res := Run(context.Background(), Command{Exec: []string{"printf", "%s|%s", "a b", "$HOME"}, Command: "ignored"})
	if res.Stdout != "a b|$HOME" {
		t.Fatalf("got %q", res.Stdout)
	}
}
