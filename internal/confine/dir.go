package confine

import (
	"errors"
	"io/fs"
	"strings"
	"sync/atomic"
)

// Dir is a directory held open for a walk that opens many files: its
// entries are listed with the types the directory itself reports (no
// stat per entry), and its subdirectories and regular files are opened
// by name relative to the open handle, one lookup each, where a Path
// resolves every element from the top of its allowed directory.
//
// It is confined as the Path it was opened from: the names opened through
// it are single elements ("", ".", ".." and names with a separator are
// refused) and a final symlink is not followed, so nothing opened through
// a Dir is outside it. Open a symlink through the Path (Dir.Path().Join)
// to follow it as a Path does.
//
// A Dir is counted: it starts held once, Retain holds it again, and the
// handle closes when every holder has called Release. OpenFile, Sub and
// the entries' Info may be called from any goroutine while it is held;
// Entries once, by one goroutine.
type Dir struct {
	at   Path
	refs atomic.Int32
	sys  dirHandle
}

// OpenHandle opens the directory p as a Dir.
func (p Path) OpenHandle() (*Dir, error) {
	if p.root == nil {
		return nil, errZeroPath
	}
	h, err := openDirHandle(p)
	if err != nil {
		return nil, err
	}
	return newDir(p, h), nil
}

func newDir(at Path, h dirHandle) *Dir {
	d := &Dir{at: at, sys: h}
	d.refs.Store(1)
	return d
}

// Path is the directory as a Path.
func (d *Dir) Path() Path { return d.at }

// Retain holds d once more; it reports false, and holds nothing, when d
// is already closed.
func (d *Dir) Retain() bool {
	for {
		n := d.refs.Load()
		if n <= 0 {
			return false
		}
		if d.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// Release lets go of one hold; the last closes the handle.
func (d *Dir) Release() {
	if d.refs.Add(-1) == 0 {
		d.sys.close()
	}
}

// Sub opens the subdirectory name as a Dir of its own (held once).
func (d *Dir) Sub(name string) (*Dir, error) {
	if err := d.checkName(name); err != nil {
		return nil, err
	}
	h, err := d.sys.sub(d.at, name)
	if err != nil {
		return nil, err
	}
	return newDir(d.at.Join(name), h), nil
}

// Entries lists the directory, sorted by name, "." and ".." left out.
// Each entry's Type is what the directory reports (a stat only where it
// reports none); Info stats the entry, through d while it is held and
// through d.Path() after.
func (d *Dir) Entries() ([]fs.DirEntry, error) {
	return d.sys.entries(d)
}

// OpenFile opens the regular file name for reading, non-blocking and
// checked with fstat as Path.Open does: anything but a regular file is
// refused with a *NotRegularError, and a symlink with an error (it is
// not followed).
func (d *Dir) OpenFile(name string) (*File, error) {
	if err := d.checkName(name); err != nil {
		return nil, err
	}
	return d.sys.openFile(d.at, name)
}

var errBadName = errors.New("not a single file name")

func (d *Dir) checkName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/`+string(pathSeparator)) {
		return &fs.PathError{Op: "open", Path: d.at.Join(name).String(), Err: errBadName}
	}
	return nil
}
