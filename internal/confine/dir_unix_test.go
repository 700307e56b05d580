//go:build unix

package confine

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// dirTree makes a directory with a file, a subdirectory, a symlink to
// each, a symlink out of the directory and a FIFO, and opens it as a Dir.
func dirTree(t *testing.T) (string, *Dir) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	top := filepath.Join(base, "top")
	outside := filepath.Join(base, "outside.txt")
	for name, content := range map[string]string{"top/b.txt": "bee\n", "top/sub/c.txt": "sea\n", "outside.txt": "secret\n"} {
		p := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"link.txt": "b.txt", "linkdir": "sub", "out.txt": outside} {
		if err := os.Symlink(target, filepath.Join(top, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(top, "fifo"), 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	dirs := New(top)
	t.Cleanup(func() { dirs.Close() })
	at, err := dirs.Locate(top)
	if err != nil {
		t.Fatal(err)
	}
	d, err := at.OpenHandle()
	if err != nil {
		t.Fatal(err)
	}
	return top, d
}

func TestDirEntriesTypesWithoutFollowing(t *testing.T) {
	_, d := dirTree(t)
	entries, err := d.Entries()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name()+" "+Kind(e.Type()))
	}
	want := "b.txt regular file, fifo fifo, link.txt symbolic link, linkdir symbolic link, out.txt symbolic link, sub directory"
	if strings.Join(got, ", ") != want {
		t.Errorf("Entries = %s\nwant      %s", strings.Join(got, ", "), want)
	}
	// Info while the Dir is held, and after it is closed (through the Path).
	for _, release := range []bool{false, true} {
		if release {
			d.Release()
			if d.Retain() {
				t.Fatal("Retain after the last Release held a closed Dir")
			}
		}
		info, err := entries[0].Info()
		if err != nil || info.Size() != 4 || !info.Mode().IsRegular() {
			t.Errorf("Info(b.txt) (released %v) = %v, %v; want 4 bytes, regular", release, info, err)
		}
		info, err = entries[2].Info()
		if err != nil || info.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("Info(link.txt) (released %v) = %v, %v; want the symlink itself", release, info, err)
		}
	}
}

func TestDirOpenFileOpensOnlyRegularFilesByName(t *testing.T) {
	_, d := dirTree(t)
	defer d.Release()
	f, err := d.OpenFile("b.txt")
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(f)
	if err != nil || string(data) != "bee\n" || f.Size() != 4 {
		t.Errorf("read b.txt = %q, %v (size %d)", data, err, f.Size())
	}
	if err := f.Close(); err != nil {
		t.Error(err)
	}
	// Refused without blocking: a FIFO with no writer, a directory.
	if _, err := d.OpenFile("fifo"); !errors.Is(err, ErrNotRegular) {
		t.Errorf("OpenFile(fifo) error = %v, want ErrNotRegular", err)
	}
	if _, err := d.OpenFile("sub"); err == nil {
		t.Error("OpenFile(sub) opened a directory")
	}
	// Symlinks are not followed, whether they stay inside or lead out.
	for _, name := range []string{"link.txt", "out.txt"} {
		if f, err := d.OpenFile(name); err == nil {
			f.Close()
			t.Errorf("OpenFile(%s) followed the symlink", name)
		}
	}
	// Only single names.
	for _, name := range []string{"", ".", "..", "sub/c.txt", "../outside.txt"} {
		if f, err := d.OpenFile(name); err == nil {
			f.Close()
			t.Errorf("OpenFile(%q) opened a path", name)
		}
	}
}

func TestDirSub(t *testing.T) {
	_, d := dirTree(t)
	defer d.Release()
	sub, err := d.Sub("sub")
	if err != nil {
		t.Fatal(err)
	}
	f, err := sub.OpenFile("c.txt")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(f)
	f.Close()
	if string(data) != "sea\n" || sub.Path().String() != filepath.Join(d.Path().String(), "sub") {
		t.Errorf("sub/c.txt = %q at %s", data, sub.Path())
	}
	sub.Release()
	for _, name := range []string{"linkdir", "..", "b.txt"} {
		if s, err := d.Sub(name); err == nil {
			s.Release()
			t.Errorf("Sub(%q) opened it", name)
		}
	}
}

// A file is read as it was when opened: what is appended later is not
// read, so a file a process keeps writing cannot hold a search forever.
func TestDirFileReadsTheSizeItWasOpenedWith(t *testing.T) {
	top, d := dirTree(t)
	defer d.Release()
	f, err := d.OpenFile("b.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := os.OpenFile(filepath.Join(top, "b.txt"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteString("more\n")
	w.Close()
	if data, err := io.ReadAll(f); err != nil || string(data) != "bee\n" {
		t.Errorf("read = %q, %v; want the 4 bytes of the open", data, err)
	}
}
