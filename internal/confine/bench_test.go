package confine

import (
	"os"
	"path/filepath"
	"testing"
)

// The cost of confinement per file: the tools build a Dirs per call (one
// more open and close of the directory) rather than keeping one per
// session; compare with a kept Dirs and with a plain os.ReadFile.
func BenchmarkReadFile(b *testing.B) {
	dir, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, "a", "b", "f.txt")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("some text\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("os.ReadFile", func(b *testing.B) {
		for b.Loop() {
			if _, err := os.ReadFile(path); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Dirs per call", func(b *testing.B) {
		for b.Loop() {
			d := New(dir)
			if _, err := d.ReadFile(path, 1<<20); err != nil {
				b.Fatal(err)
			}
			d.Close()
		}
	})
	b.Run("Dirs kept", func(b *testing.B) {
		d := New(dir)
		defer d.Close()
		for b.Loop() {
			if _, err := d.ReadFile(path, 1<<20); err != nil {
				b.Fatal(err)
			}
		}
	})
}
