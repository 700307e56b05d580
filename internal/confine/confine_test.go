package confine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// realTempDir is a fresh directory with its own symlinks evaluated (the
// temporary directory may sit behind one, as /tmp does on macOS).
func realTempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func newDirs(t *testing.T, dirs ...string) *Dirs {
	t.Helper()
	d := New(dirs...)
	t.Cleanup(func() { d.Close() })
	return d
}

// Links that stay inside an allowed directory are followed, relative or
// absolute, and so is a link from one allowed directory into another;
// links out are refused, whatever their shape.
func TestReadFileFollowsOnlyLinksThatStayInside(t *testing.T) {
	project, extra, outside := realTempDir(t), realTempDir(t), realTempDir(t)
	write(t, filepath.Join(project, "AGENTS.md"), "agents")
	write(t, filepath.Join(extra, "notes.md"), "notes")
	write(t, filepath.Join(outside, "credentials"), "SECRET")
	symlink(t, "AGENTS.md", filepath.Join(project, "CLAUDE.md"))
	symlink(t, filepath.Join(project, "AGENTS.md"), filepath.Join(project, "absolute.md"))
	symlink(t, filepath.Join(extra, "notes.md"), filepath.Join(project, "to-extra.md"))
	symlink(t, extra, filepath.Join(project, "extra-dir"))
	symlink(t, filepath.Join(outside, "credentials"), filepath.Join(project, "secret.md"))
	symlink(t, outside, filepath.Join(project, "out"))
	symlink(t, "../"+filepath.Base(outside)+"/credentials", filepath.Join(project, "relative-out.md"))
	d := newDirs(t, project, extra)

	for name, want := range map[string]string{
		"CLAUDE.md": "agents", "absolute.md": "agents", "to-extra.md": "notes", "extra-dir/notes.md": "notes",
	} {
		got, err := d.ReadFile(filepath.Join(project, name), 100)
		if err != nil || string(got) != want {
			t.Errorf("ReadFile(%s) = %q, %v; want %q", name, got, err, want)
		}
	}
	for _, name := range []string{"secret.md", "out/credentials", "relative-out.md", "../" + filepath.Base(outside) + "/credentials"} {
		got, err := d.ReadFile(project+"/"+name, 100)
		var oe *OutsideError
		if !errors.As(err, &oe) || !errors.Is(err, ErrOutside) {
			t.Errorf("ReadFile(%s) = %q, %v; want an OutsideError", name, got, err)
			continue
		}
		if oe.Real != filepath.Join(outside, "credentials") || !strings.Contains(err.Error(), oe.Real) {
			t.Errorf("ReadFile(%s): %v (real %s)", name, err, oe.Real)
		}
	}
}

// A directory swapped for a symlink out after Locate checked it is not
// followed by any operation on the located Path: os.Root resolves the path
// again when it is used.
func TestSwapAfterLocateIsRefused(t *testing.T) {
	project, outside := realTempDir(t), realTempDir(t)
	write(t, filepath.Join(project, "dir", "f.txt"), "inside")
	write(t, filepath.Join(outside, "f.txt"), "SECRET")
	d := newDirs(t, project)
	file, err := d.Locate(filepath.Join(project, "dir", "f.txt"))
	if err != nil {
		t.Fatal(err)
	}
	newFile := file.Join("..", "new.txt")
	dir, err := d.Locate(filepath.Join(project, "dir"))
	if err != nil {
		t.Fatal(err)
	}
	sub := dir.Join("sub")

	if err := os.Rename(filepath.Join(project, "dir"), filepath.Join(project, "moved")); err != nil {
		t.Fatal(err)
	}
	symlink(t, outside, filepath.Join(project, "dir"))

	if data, err := file.ReadFile(100); err == nil {
		t.Errorf("ReadFile through the swapped link read %q", data)
	}
	if f, err := file.Open(); err == nil {
		f.Close()
		t.Error("Open followed the swapped link")
	}
	if err := file.WriteFile([]byte("planted"), 0o644); err == nil {
		t.Error("WriteFile followed the swapped link")
	}
	if err := newFile.WriteFile([]byte("planted"), 0o644); err == nil {
		t.Error("WriteFile of a new file followed the swapped link")
	}
	if err := sub.MkdirAll(0o755); err == nil {
		t.Error("MkdirAll followed the swapped link")
	}
	if entries, err := dir.ReadDir(); err == nil {
		t.Errorf("ReadDir followed the swapped link: %v", entries)
	}
	if _, err := file.Stat(); err == nil {
		t.Error("Stat followed the swapped link")
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Errorf("the outside directory holds %v", entries)
	}
	if data, _ := os.ReadFile(filepath.Join(outside, "f.txt")); string(data) != "SECRET" {
		t.Errorf("outside file changed to %q", data)
	}
}

func TestJoinCannotClimbOut(t *testing.T) {
	project, outside := realTempDir(t), realTempDir(t)
	write(t, filepath.Join(outside, "secret"), "SECRET")
	d := newDirs(t, project)
	p, err := d.Locate(project)
	if err != nil {
		t.Fatal(err)
	}
	if data, err := p.Join("..", filepath.Base(outside), "secret").ReadFile(100); err == nil {
		t.Fatalf("read %q through ..", data)
	}
}

func TestReadFileLimit(t *testing.T) {
	project := realTempDir(t)
	write(t, filepath.Join(project, "big"), strings.Repeat("x", 101))
	d := newDirs(t, project)
	if _, err := d.ReadFile(filepath.Join(project, "big"), 100); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	if data, err := d.ReadFile(filepath.Join(project, "big"), 101); err != nil || len(data) != 101 {
		t.Fatalf("ReadFile at the limit = %d bytes, %v", len(data), err)
	}
	if _, err := d.ReadFile(filepath.Join(project, "big"), 0); err == nil {
		t.Fatal("a zero limit was accepted")
	}
}

func TestWriteFileCreatesAndKeepsPermissions(t *testing.T) {
	project := realTempDir(t)
	d := newDirs(t, project)
	if err := d.MkdirAll(filepath.Join(project, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(project, "a", "b", "f.sh")
	if err := d.WriteFile(path, []byte("long content\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteFile(path, []byte("short\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("mode after rewrite = %v, %v", fi.Mode(), err)
	}
	if data, _ := os.ReadFile(path); string(data) != "short\n" {
		t.Fatalf("content = %q", data)
	}
	err = d.WriteFile(filepath.Join(project, "a"), []byte("x"), 0o644)
	if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "is not a regular file (directory)") {
		t.Fatalf("writing a directory: %v", err)
	}
}

func TestClosedDirsRefuse(t *testing.T) {
	project := realTempDir(t)
	write(t, filepath.Join(project, "f"), "x")
	d := New(project)
	p, err := d.Locate(filepath.Join(project, "f"))
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	if _, err := d.Locate(filepath.Join(project, "f")); !errors.Is(err, fs.ErrClosed) {
		t.Fatalf("Locate after Close: %v", err)
	}
	if _, err := p.ReadFile(10); err == nil {
		t.Fatal("a Path outlived its Dirs")
	}
	var zero Path
	if _, err := zero.Stat(); err == nil {
		t.Fatal("the zero Path named a file")
	}
}
