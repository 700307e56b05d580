//go:build unix

package confine

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO nobody writes to would block a plain open for reading forever
// (and one nobody reads, a write). Both are refused at once, saying what
// the file is; if the open blocked, this test would hang.
func TestFIFOIsRefusedWithoutBlocking(t *testing.T) {
	project := realTempDir(t)
	fifo := filepath.Join(project, "AGENTS.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	symlink(t, "AGENTS.md", filepath.Join(project, "CLAUDE.md"))
	d := newDirs(t, project)
	for _, name := range []string{"AGENTS.md", "CLAUDE.md"} {
		_, err := d.ReadFile(filepath.Join(project, name), 100)
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), fifo+" is not a regular file (fifo)") {
			t.Errorf("ReadFile(%s): %v", name, err)
		}
	}
	p, err := d.Locate(fifo)
	if err != nil {
		t.Fatal(err)
	}
	if f, err := p.Open(); !errors.Is(err, ErrNotRegular) {
		if f != nil {
			f.Close()
		}
		t.Errorf("Open: %v", err)
	}
	if err := p.WriteFile([]byte("x"), 0o644); !errors.Is(err, ErrNotRegular) {
		t.Errorf("WriteFile: %v", err)
	}
}
