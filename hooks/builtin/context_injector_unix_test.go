//go:build unix

package builtin

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cordis-agent/cordis/hooks"
)

// A FIFO where a context file is expected would block a plain read until
// someone writes to it (with the code before internal/confine, this test
// hung); it is skipped at once and named.
func TestContextInjectorSkipsFIFOs(t *testing.T) {
	project := realDir(t)
	fifo := filepath.Join(project, "AGENTS.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	p, _ := pipeline(t, DefaultConfig(), Options{})
	d := p.Run(context.Background(), &hooks.Input{Event: hooks.SessionStart, SessionID: "s", Cwd: project, Source: "startup"})
	if len(d.SystemContext) != 0 || len(d.SystemMessages) != 1 || !strings.Contains(d.SystemMessages[0], fifo+" were not read: it is not a regular file (fifo)") {
		t.Fatalf("decision = %+v", d)
	}
}
