//go:build unix

package commands

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO is refused by name and kind, as a template's @{file} and as a
// project command file: a plain open would wait for a writer forever (with
// the code before internal/confine, this test hung).
func TestFIFOsAreRefusedNotWaitedOn(t *testing.T) {
	cwd, home := realDir(t), realDir(t)
	fifo := filepath.Join(cwd, "notes.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	command := filepath.Join(cwd, ".claude", "commands", "wait.md")
	mustLink(t, "../../notes.md", command)
	want := fifo + " is not a regular file (fifo)"

	e := &Expander{Resolve: confined(cwd), Roots: []string{cwd}}
	if got, err := e.Expand(context.Background(), "@{notes.md}", ""); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Expand = %q, %v; want %q", got, err, want)
	}
	s := NewRegistry(nil, testSources(home, nil)).Load(cwd)
	if len(s.Errors) != 1 || s.Errors[0].String() != command+": "+want {
		t.Errorf("errors = %v; want %s: %s", s.Errors, command, want)
	}
}
