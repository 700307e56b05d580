package proc

import (
	"bufio"
	"strings"
	"testing"
	"time"
)

// A long-lived process talks over its pipes; Stop ends its whole group,
// including a child that ignores SIGTERM and holds the pipes open.
func TestStartAndStop(t *testing.T) {
	p, err := Start(Cmd{Path: "/bin/sh", Args: []string{"-c", `trap '' TERM; (trap '' TERM; sleep 1000) & echo started >&2; while read l; do echo "got $l"; done; sleep 1000`}, Grace: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Stdin().Write([]byte("ping\n")); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(p.Stdout()).ReadString('\n')
	if err != nil || line != "got ping\n" {
		t.Fatalf("read %q, %v", line, err)
	}
	if st := p.ExitStatus(); st != "" {
		t.Errorf("ExitStatus while running = %q", st)
	}
	p.Stop(100 * time.Millisecond)
	if !groupGone(p.Pid()) {
		t.Errorf("group %d survived Stop", p.Pid())
	}
	if st := p.ExitStatus(); st != "signal: killed" {
		t.Errorf("ExitStatus = %q", st)
	}
	if got := p.Stderr(); got != "started\n" {
		t.Errorf("Stderr = %q", got)
	}
	p.Stop(0) // idempotent
}

// A process that exits on its own reports how, with its stderr.
func TestStartExit(t *testing.T) {
	p, err := Start(Cmd{Path: "/bin/sh", Args: []string{"-c", "echo bye >&2; exit 3"}})
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	if st := p.ExitStatus(); st != "exit status 3" {
		t.Errorf("ExitStatus = %q", st)
	}
	if got := strings.TrimSpace(p.Stderr()); got != "bye" {
		t.Errorf("Stderr = %q", got)
	}
	p.Stop(time.Second)
}
