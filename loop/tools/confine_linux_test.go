//go:build linux

package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

const secretText = "TOP-SECRET-outside-the-workspace"

// raceSwap sets up a workspace whose "dir" is a real directory holding
// inside and whose "link" is a symlink to a directory outside holding
// outside, then runs fn (given the Env and the path of dir) while a
// goroutine exchanges the two names atomically with
// renameat2(RENAME_EXCHANGE), as fast as it can: the race a hostile
// repository can run against the tools. Afterwards the directory outside
// must hold exactly what it held before. The test is skipped where
// renameat2(RENAME_EXCHANGE) is not supported (old kernels, some file
// systems).
func raceSwap(t *testing.T, inside, outside map[string]string, fn func(env *Env, dir string)) {
	t.Helper()
	env := newEnv(t)
	out, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir, link := filepath.Join(env.Cwd, "dir"), filepath.Join(env.Cwd, "link")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range inside {
		writeFile(t, filepath.Join(dir, name), content)
	}
	for name, content := range outside {
		writeFile(t, filepath.Join(out, name), content)
	}
	mustSymlink(t, out, link)
	exchange := func() error { return unix.Renameat2(unix.AT_FDCWD, dir, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE) }
	if err := exchange(); err != nil {
		t.Skipf("renameat2(RENAME_EXCHANGE) is not supported here: %v", err)
	}

	var stop atomic.Bool
	var swapErr error
	swaps := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !stop.Load() {
			if swapErr = exchange(); swapErr != nil {
				return
			}
			swaps++
		}
	}()
	func() {
		// Stopped however fn ends, t.Fatal included.
		defer func() {
			stop.Store(true)
			<-done
		}()
		fn(env, dir)
	}()
	if swapErr != nil {
		t.Fatalf("exchanging %s and %s: %v", dir, link, swapErr)
	}
	t.Logf("%d exchanges during the test", swaps)

	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var planted []string
	for _, e := range entries {
		want, ok := outside[e.Name()]
		if !ok {
			planted = append(planted, e.Name())
			continue
		}
		if got := readFile(t, filepath.Join(out, e.Name())); got != want {
			t.Errorf("%s outside the workspace changed to %q", e.Name(), got)
		}
	}
	if len(planted) > 0 {
		t.Errorf("%d files were written outside the workspace: %s", len(planted), strings.Join(planted, ", "))
	}
}

// TestWriteConfinedWhileADirectoryIsSwapped: Write into a directory that
// is being swapped with a symlink out never writes outside. (Checking the
// path with Resolve before a plain open let several writes in 300 out.)
func TestWriteConfinedWhileADirectoryIsSwapped(t *testing.T) {
	const writes = 300
	raceSwap(t, nil, nil, func(env *Env, dir string) {
		refused := 0
		for i := range writes {
			res := run(t, env, "Write", map[string]any{"file_path": filepath.Join(dir, fmt.Sprintf("f%03d.txt", i)), "content": "planted\n"})
			if res.IsError {
				refused++
			}
		}
		t.Logf("%d of %d writes refused", refused, writes)
	})
}

// TestReadConfinedWhileADirectoryIsSwapped: Read, Grep and Edit of a file
// in a directory that is being swapped with a symlink out never read the
// file outside, and Edit never changes it.
func TestReadConfinedWhileADirectoryIsSwapped(t *testing.T) {
	const rounds = 300
	inside := map[string]string{"notes.txt": "inside notes\n"}
	outside := map[string]string{"notes.txt": secretText + "\n"}
	raceSwap(t, inside, outside, func(env *Env, dir string) {
		notes := filepath.Join(dir, "notes.txt")
		calls := []struct {
			tool  string
			input map[string]any
		}{
			{"Read", map[string]any{"file_path": notes}},
			{"Grep", map[string]any{"pattern": "SECRET|notes", "output_mode": "content"}},
			{"Edit", map[string]any{"file_path": notes, "old_string": "TOP", "new_string": "PLANTED"}},
		}
		for range rounds {
			for _, c := range calls {
				if res := run(t, env, c.tool, c.input); strings.Contains(res.Text, secretText) {
					t.Fatalf("%s read the file outside the workspace: %s", c.tool, res.Text)
				}
			}
		}
	})
}
