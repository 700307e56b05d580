//go:build unix

package confine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadRegularFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, []byte("12345"), 0o600)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	if data, err := ReadRegularFile(file, 5); err != nil || string(data) != "12345" {
		t.Errorf("ReadRegularFile(5 bytes, limit 5) = %q, %v", data, err)
	}
	if _, err := ReadRegularFile(file, 4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadRegularFile(5 bytes, limit 4) error = %v, want ErrTooLarge", err)
	}
	// A FIFO with no writer would block a plain open or read forever.
	if _, err := ReadRegularFile(fifo, 5); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "fifo") {
		t.Errorf("ReadRegularFile(fifo) error = %v, want ErrNotRegular naming a fifo", err)
	}
	if _, err := ReadRegularFile(dir, 5); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadRegularFile(dir) error = %v, want ErrNotRegular", err)
	}
	if _, err := ReadRegularFile(filepath.Join(dir, "missing"), 5); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadRegularFile(missing) error = %v, want ErrNotExist", err)
	}
}
