package proc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestChildrenFromTaskFiles: the children files of this process's threads
// name the same children as a scan of every process, and the fast path
// is taken on this kernel.
func TestChildrenFromTaskFiles(t *testing.T) {
	var cmds []*exec.Cmd
	for range 3 {
		c := exec.Command("sleep", "30")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
	}
	t.Cleanup(func() {
		for _, c := range cmds {
			c.Process.Kill()
			c.Wait()
		}
	})
	fast, ok := childrenOfTasks(os.Getpid())
	if !ok {
		t.Skip("this kernel has no /proc/<pid>/task/<tid>/children files")
	}
	pids := func(ps []procStat) []int {
		var out []int
		for _, p := range ps {
			out = append(out, p.pid)
		}
		slices.Sort(out)
		return out
	}
	if got, want := pids(fast), pids(scanChildren(os.Getpid())); !slices.Equal(got, want) {
		t.Fatalf("children from the task files = %v, from the scan = %v", got, want)
	}
	for _, c := range cmds {
		if !slices.Contains(pids(fast), c.Process.Pid) {
			t.Errorf("child %d missing from %v", c.Process.Pid, pids(fast))
		}
	}
}

// TestEscapeeDiesBesideLongLivedChild: a process a command started outside
// its group (setsid) is killed after the command even while cordis has
// another child that stays (an MCP server, say), which is when
// ReapOrphans has to list the children rather than stop at "none".
func TestEscapeeDiesBesideLongLivedChild(t *testing.T) {
	if _, err := os.Stat("/usr/bin/setsid"); err != nil {
		t.Skip("no setsid")
	}
	if !subreaper() {
		t.Skip("cannot be a child subreaper here")
	}
	server := exec.Command("sleep", "30")
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Process.Kill(); server.Wait() })

	pidFile := filepath.Join(t.TempDir(), "pid")
	got := Run(context.Background(), Cmd{
		Path:  "/bin/sh",
		Args:  []string{"-c", fmt.Sprintf("setsid -f sh -c 'echo $$ > %[1]s.tmp; mv %[1]s.tmp %[1]s; exec sleep 100'; until [ -e %[1]s ]; do sleep 0.01; done; echo done", pidFile)},
		Grace: 50 * time.Millisecond,
	})
	if got.Output != "done\n" {
		t.Fatalf("%+v", got)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the escapee %d survived the command (kill 0: %v)", pid, err)
	}
	if err := syscall.Kill(server.Process.Pid, 0); err != nil {
		t.Fatalf("the long-lived child was killed too: %v", err)
	}
}
