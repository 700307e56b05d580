//go:build unix

package tools

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO in the workspace (a repository's build can make one) is refused
// by name and kind, at once: a plain open would wait forever for a writer
// (with the code before internal/confine, this test hung in Read). Grep
// skips it while walking, and the editor is never asked to read it.
func TestFIFOsAreRefusedNotOpened(t *testing.T) {
	env := newEnv(t)
	fifo := filepath.Join(env.Cwd, "pipe.txt")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	if err := syscall.Mkfifo(filepath.Join(env.Cwd, "pipe.png"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(env.Cwd, "a.txt"), "needle\n")
	want := fifo + " is not a regular file (fifo)"
	for _, c := range []struct {
		tool  string
		input map[string]any
		want  string
	}{
		{"Read", map[string]any{"file_path": fifo}, "Read: " + want},
		{"Read", map[string]any{"file_path": filepath.Join(env.Cwd, "pipe.png")}, "Read: " + filepath.Join(env.Cwd, "pipe.png") + " is not a regular file (fifo)"},
		{"Write", map[string]any{"file_path": fifo, "content": "x"}, "Write: " + want},
		{"Edit", map[string]any{"file_path": fifo, "old_string": "a", "new_string": "b"}, "Edit: " + want},
		{"Grep", map[string]any{"pattern": "needle", "path": fifo}, "Grep: " + want},
	} {
		res := run(t, env, c.tool, c.input)
		if !res.IsError || res.Text != c.want {
			t.Errorf("%s %v: %+v; want %q", c.tool, c.input, res, c.want)
		}
	}
	res := run(t, env, "Grep", map[string]any{"pattern": "needle"})
	if res.IsError || !strings.Contains(res.Text, "a.txt") || strings.Contains(res.Text, "pipe") {
		t.Errorf("Grep over a tree with FIFOs: %+v", res)
	}

	fsys := &fakeFS{}
	env.FS = fsys
	res = run(t, env, "Read", map[string]any{"file_path": fifo})
	if !res.IsError || res.Text != "Read: "+want || len(fsys.calls) != 0 {
		t.Errorf("Read through the editor: %+v, editor asked %q", res, fsys.calls)
	}
}
