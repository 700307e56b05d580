package confine

import (
	"bytes"
	"encoding/binary"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

const pathSeparator = '/'

// dirHandle is an open directory descriptor. The top one of a walk is
// opened through os.Root (file keeps it); the ones below with openat
// relative to their parent's descriptor, O_NOFOLLOW, as os.Root does for
// one element.
type dirHandle struct {
	fd   int
	file *os.File // owns fd when the handle came from os.Root
}

func openDirHandle(p Path) (dirHandle, error) {
	f, err := p.root.OpenFile(p.rel, os.O_RDONLY|dirFlags, 0)
	if err != nil {
		return dirHandle{}, p.fix(err)
	}
	fi, err := f.Stat()
	if err != nil || !fi.IsDir() {
		f.Close()
		if err == nil {
			err = &fs.PathError{Op: "open", Path: p.String(), Err: unix.ENOTDIR}
		}
		return dirHandle{}, p.fix(err)
	}
	return dirHandle{fd: int(f.Fd()), file: f}, nil
}

func (h dirHandle) close() {
	if h.file != nil {
		h.file.Close()
	} else {
		unix.Close(h.fd)
	}
}

func (h dirHandle) sub(at Path, name string) (dirHandle, error) {
	fd, err := openat(h.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK)
	if err != nil {
		return dirHandle{}, &fs.PathError{Op: "open", Path: at.Join(name).String(), Err: err}
	}
	return dirHandle{fd: fd}, nil
}

func openat(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// direntBuffers are the buffers getdents fills, shared by the walks.
var direntBuffers = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

func (h dirHandle) entries(d *Dir) ([]fs.DirEntry, error) {
	bp := direntBuffers.Get().(*[]byte)
	defer direntBuffers.Put(bp)
	buf := *bp
	var out []fs.DirEntry
	for {
		n, err := unix.ReadDirent(h.fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return out, &fs.PathError{Op: "readdirent", Path: d.at.String(), Err: err}
		}
		if n <= 0 {
			break
		}
		for rec := buf[:n]; len(rec) >= 19; {
			// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name.
			reclen := int(binary.NativeEndian.Uint16(rec[16:18]))
			if reclen < 19 || reclen > len(rec) {
				break
			}
			ino, typ, name := binary.NativeEndian.Uint64(rec[0:8]), rec[18], rec[19:reclen]
			rec = rec[reclen:]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			if ino == 0 || string(name) == "." || string(name) == ".." {
				continue
			}
			e := &dirEntry{dir: d, name: string(name)}
			if mode, ok := direntType(typ); ok {
				e.typ = mode
			} else { // the file system does not say: stat it
				info, err := e.Info()
				if err != nil {
					continue // gone since the listing
				}
				e.typ = info.Mode().Type()
			}
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

func direntType(t uint8) (fs.FileMode, bool) {
	switch t {
	case unix.DT_REG:
		return 0, true
	case unix.DT_DIR:
		return fs.ModeDir, true
	case unix.DT_LNK:
		return fs.ModeSymlink, true
	case unix.DT_FIFO:
		return fs.ModeNamedPipe, true
	case unix.DT_SOCK:
		return fs.ModeSocket, true
	case unix.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice, true
	case unix.DT_BLK:
		return fs.ModeDevice, true
	}
	return 0, false
}

// dirEntry is an entry of Dir.Entries.
type dirEntry struct {
	dir  *Dir
	name string
	typ  fs.FileMode
}

func (e *dirEntry) Name() string               { return e.name }
func (e *dirEntry) IsDir() bool                { return e.typ.IsDir() }
func (e *dirEntry) Type() fs.FileMode          { return e.typ }
func (e *dirEntry) String() string             { return fs.FormatDirEntry(e) }
func (e *dirEntry) Info() (fs.FileInfo, error) { return e.dir.lstat(e.name) }

// lstat describes the entry name without following a symlink: fstatat
// relative to the descriptor while d is held, else through the Path.
func (d *Dir) lstat(name string) (fs.FileInfo, error) {
	if !d.Retain() {
		return d.at.Join(name).Lstat()
	}
	defer d.Release()
	info := &fileInfo{name: name}
	for {
		err := unix.Fstatat(d.sys.fd, name, &info.sys, unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "lstat", Path: d.at.Join(name).String(), Err: err}
		}
		return info, nil
	}
}

// fileInfo is a stat result, as os makes one.
type fileInfo struct {
	name string
	sys  unix.Stat_t
}

func (fi *fileInfo) Name() string       { return fi.name }
func (fi *fileInfo) Size() int64        { return fi.sys.Size }
func (fi *fileInfo) ModTime() time.Time { return time.Unix(fi.sys.Mtim.Unix()) }
func (fi *fileInfo) IsDir() bool        { return fi.Mode().IsDir() }
func (fi *fileInfo) Sys() any           { return &fi.sys }
func (fi *fileInfo) Mode() fs.FileMode  { return statMode(fi.sys.Mode) }

func statMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	}
	if m&unix.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&unix.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&unix.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}

func (h dirHandle) openFile(at Path, name string) (*File, error) {
	fd, err := openat(h.fd, name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_NOFOLLOW|unix.O_CLOEXEC)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: at.Join(name).String(), Err: err}
	}
	var st unix.Stat_t
	for {
		if err = unix.Fstat(fd, &st); err != unix.EINTR {
			break
		}
	}
	if err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "fstat", Path: at.Join(name).String(), Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, &NotRegularError{Path: at.Join(name).String(), Mode: statMode(st.Mode)}
	}
	return &File{fd: fd, size: st.Size, dir: at, name: name}, nil
}

// File is a regular file opened through a Dir, read with plain system
// calls (no poller registration, no finalizer: Close it). It reads up to
// the size fstat gave when it was opened, so a file that grows while it
// is read is read as it was then; a file that claims size 0 (as those of
// /proc do) is read to its end.
type File struct {
	fd        int
	size, off int64
	dir       Path
	name      string
}

// Size is the file's size when it was opened.
func (f *File) Size() int64 { return f.size }

func (f *File) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if f.size > 0 && f.off >= f.size {
		return 0, io.EOF
	}
	if f.size > 0 && int64(len(p)) > f.size-f.off {
		p = p[:f.size-f.off]
	}
	for {
		n, err := unix.Read(f.fd, p)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, &fs.PathError{Op: "read", Path: filepath.Join(f.dir.String(), f.name), Err: err}
		case n == 0:
			return 0, io.EOF
		}
		f.off += int64(n)
		return n, nil
	}
}

// Close closes the file.
func (f *File) Close() error {
	if f.fd < 0 {
		return fs.ErrClosed
	}
	err := unix.Close(f.fd)
	f.fd = -1
	return err
}
