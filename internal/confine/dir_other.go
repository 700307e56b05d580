//go:build !linux

package confine

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

const pathSeparator = filepath.Separator

// dirHandle is the directory opened as an os.Root: the portable form of
// the Linux descriptor.
type dirHandle struct{ held Path }

func openDirHandle(p Path) (dirHandle, error) {
	held, err := p.OpenDir()
	return dirHandle{held}, err
}

func (h dirHandle) close() { h.held.Close() }

func (h dirHandle) sub(_ Path, name string) (dirHandle, error) {
	held, err := h.held.Join(name).OpenDir()
	return dirHandle{held}, err
}

func (h dirHandle) entries(*Dir) ([]fs.DirEntry, error) { return h.held.ReadDir() }

func (h dirHandle) openFile(_ Path, name string) (*File, error) {
	p := h.held.Join(name)
	if fi, err := p.Lstat(); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, &fs.PathError{Op: "open", Path: p.String(), Err: fs.ErrInvalid}
	}
	f, fi, err := p.openRegular(os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	return &File{f: f, size: fi.Size()}, nil
}

// File is a regular file opened through a Dir, read up to the size it
// had when it was opened (a file that claims size 0 is read to its end).
type File struct {
	f         *os.File
	size, off int64
}

// Size is the file's size when it was opened.
func (f *File) Size() int64 { return f.size }

func (f *File) Read(p []byte) (int, error) {
	if f.size > 0 && f.off >= f.size {
		return 0, io.EOF
	}
	if f.size > 0 && int64(len(p)) > f.size-f.off {
		p = p[:f.size-f.off]
	}
	n, err := f.f.Read(p)
	f.off += int64(n)
	return n, err
}

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }
