package confine

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
)

var (
	// ErrOutside marks a path whose real location is in none of the
	// allowed directories; the error is an *OutsideError.
	ErrOutside = errors.New("outside the allowed directories")
	// ErrNotRegular marks a FIFO, socket, device or directory where a
	// regular file was needed; the error is a *NotRegularError.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge marks a file larger than the cap of a read.
	ErrTooLarge = errors.New("too large")
)

// OutsideError is a path that leads out of the allowed directories.
type OutsideError struct {
	Path string   // as given
	Real string   // with the symlinks of its existing prefix evaluated
	Dirs []string // the allowed directories
}

func (e *OutsideError) Error() string {
	dirs := strings.Join(e.Dirs, ", ")
	if e.Real != e.Path {
		return fmt.Sprintf("%s leads to %s, outside the allowed directories (%s)", e.Path, e.Real, dirs)
	}
	return fmt.Sprintf("%s is outside the allowed directories (%s)", e.Path, dirs)
}

func (e *OutsideError) Unwrap() error { return ErrOutside }

// NotRegularError is a file that is not a regular file.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is not a regular file (%s)", e.Path, Kind(e.Mode))
}

func (e *NotRegularError) Unwrap() error { return ErrNotRegular }

// CheckRegular returns a *NotRegularError when fi, the information about
// path, is not a regular file, and nil when it is.
func CheckRegular(path string, fi fs.FileInfo) error {
	if fi.Mode().IsRegular() {
		return nil
	}
	return &NotRegularError{Path: path, Mode: fi.Mode()}
}

// Kind names the type of a file mode the way a user knows it: "fifo",
// "directory", "socket" and so on.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "regular file"
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "fifo"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "irregular file"
}

// Dirs is a set of allowed directories.
type Dirs struct {
	mu     sync.Mutex
	roots  []*root
	closed bool
}

type root struct {
	dir    string   // the directory with its symlinks evaluated
	handle *os.Root // opened on first use, under Dirs.mu
}

// New returns the set of the absolute directories dirs. Relative and
// empty entries are ignored; each directory's own symlinks are evaluated
// now (the directories are the user's choice, trusted, unlike what lies
// below them). Nothing is opened until a file is used.
func New(dirs ...string) *Dirs {
	d := &Dirs{}
	for _, dir := range dirs {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		real, err := EvalExisting(dir)
		if err != nil || slices.ContainsFunc(d.roots, func(r *root) bool { return r.dir == real }) {
			continue
		}
		d.roots = append(d.roots, &root{dir: real})
	}
	return d
}

// Dirs returns the allowed directories, symlinks evaluated, in the order
// given to New.
func (d *Dirs) Dirs() []string {
	out := make([]string, len(d.roots))
	for i, r := range d.roots {
		out[i] = r.dir
	}
	return out
}

// Close closes the directory handles; the Paths located through d stop
// working.
func (d *Dirs) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	var errs []error
	for _, r := range d.roots {
		if r.handle != nil {
			errs = append(errs, r.handle.Close())
			r.handle = nil
		}
	}
	return errors.Join(errs...)
}

func (d *Dirs) open(r *root) (*os.Root, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, &fs.PathError{Op: "open", Path: r.dir, Err: fs.ErrClosed}
	}
	if r.handle == nil {
		h, err := os.OpenRoot(r.dir)
		if err != nil {
			return nil, err
		}
		r.handle = h
	}
	return r.handle, nil
}

// Locate finds the allowed directory holding the file at the absolute
// path: the symlinks of the path's existing prefix are evaluated, and the
// first directory (in New's order) that holds the result is chosen. The
// returned Path names the file relative to that directory; every
// operation on it is resolved again, by os.Root, at the moment it runs. A
// path whose real location is outside every directory is an
// *OutsideError.
func (d *Dirs) Locate(path string) (Path, error) {
	if !filepath.IsAbs(path) {
		return Path{}, &fs.PathError{Op: "locate", Path: path, Err: errors.New("the path is not absolute")}
	}
	real, err := EvalExisting(path)
	if err != nil {
		return Path{}, &fs.PathError{Op: "locate", Path: path, Err: err}
	}
	for _, r := range d.roots {
		if !Within(r.dir, real) {
			continue
		}
		h, err := d.open(r)
		if err != nil {
			return Path{}, err
		}
		rel, err := filepath.Rel(r.dir, real)
		if err != nil {
			return Path{}, err
		}
		return Path{root: h, dir: r.dir, rel: rel}, nil
	}
	return Path{}, &OutsideError{Path: path, Real: real, Dirs: d.Dirs()}
}

// ReadFile reads the regular file at path, at most limit bytes; see
// Path.ReadFile.
func (d *Dirs) ReadFile(path string, limit int64) ([]byte, error) {
	p, err := d.Locate(path)
	if err != nil {
		return nil, err
	}
	return p.ReadFile(limit)
}

// WriteFile writes the regular file at path; see Path.WriteFile.
func (d *Dirs) WriteFile(path string, data []byte, perm fs.FileMode) error {
	p, err := d.Locate(path)
	if err != nil {
		return err
	}
	return p.WriteFile(data, perm)
}

// MkdirAll creates the directory at path and its missing parents.
func (d *Dirs) MkdirAll(path string, perm fs.FileMode) error {
	p, err := d.Locate(path)
	if err != nil {
		return err
	}
	return p.MkdirAll(perm)
}

// Stat describes the file at path, following symlinks that stay inside.
func (d *Dirs) Stat(path string) (fs.FileInfo, error) {
	p, err := d.Locate(path)
	if err != nil {
		return nil, err
	}
	return p.Stat()
}

// Path is a file inside one of the allowed directories, named relative to
// it. It is valid until its Dirs is closed; the zero Path names nothing.
type Path struct {
	root *os.Root
	dir  string // the allowed directory, symlinks evaluated
	rel  string // relative to dir; "." for dir itself
}

// String is the absolute path.
func (p Path) String() string {
	if p.rel == "." {
		return p.dir
	}
	return filepath.Join(p.dir, p.rel)
}

// Join names a file below p, such as an entry of p.ReadDir. The elements
// are joined lexically; a ".." or a symlink leading outside is still
// refused when the result is used.
func (p Path) Join(elem ...string) Path {
	p.rel = filepath.Join(append([]string{p.rel}, elem...)...)
	return p
}

// Dir names the directory p is in (p itself for the top of its
// directory).
func (p Path) Dir() Path {
	p.rel = filepath.Dir(p.rel)
	return p
}

// OpenDir opens the directory p as a Path of its own, which names it
// and below which files are looked up from its open handle: one lookup
// per name opened rather than one per element of the path, for a walk
// that opens many files in one directory. It is confined as p is (an
// os.Root opened inside p's root cannot leave it), and more: a symlink
// below it may not lead out of it. Close releases it.
func (p Path) OpenDir() (Path, error) {
	if p.root == nil {
		return Path{}, errZeroPath
	}
	r, err := p.root.OpenRoot(p.rel)
	if err != nil {
		return Path{}, p.fix(err)
	}
	return Path{root: r, dir: p.String(), rel: "."}, nil
}

// Close releases a Path made by OpenDir; on any other Path it would
// close a directory its Dirs still uses, so call it only on those.
func (p Path) Close() error {
	if p.root == nil {
		return nil
	}
	return p.root.Close()
}

var errZeroPath = errors.New("confine: the zero Path names no file")

// fix makes an error of os.Root name the absolute path instead of the
// relative one it was given.
func (p Path) fix(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return &fs.PathError{Op: pe.Op, Path: p.String(), Err: pe.Err}
	}
	return err
}

// Stat describes the file, following symlinks that stay inside.
func (p Path) Stat() (fs.FileInfo, error) {
	if p.root == nil {
		return nil, errZeroPath
	}
	fi, err := p.root.Stat(p.rel)
	return fi, p.fix(err)
}

// Lstat describes the file without following a final symlink.
func (p Path) Lstat() (fs.FileInfo, error) {
	if p.root == nil {
		return nil, errZeroPath
	}
	fi, err := p.root.Lstat(p.rel)
	return fi, p.fix(err)
}

// MkdirAll creates the directory and its missing parents.
func (p Path) MkdirAll(perm fs.FileMode) error {
	if p.root == nil {
		return errZeroPath
	}
	return p.fix(p.root.MkdirAll(p.rel, perm))
}

// ReadDir lists the directory, sorted by name. The entries' information
// comes from the directory itself (no path is looked up again).
func (p Path) ReadDir() ([]fs.DirEntry, error) {
	if p.root == nil {
		return nil, errZeroPath
	}
	f, err := p.root.OpenFile(p.rel, os.O_RDONLY|dirFlags, 0)
	if err != nil {
		return nil, p.fix(err)
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, p.fix(err)
}

// Open opens the regular file for reading. It never blocks on a FIFO: the
// file is opened non-blocking, and anything but a regular file is refused
// with a *NotRegularError.
func (p Path) Open() (*os.File, error) {
	f, _, err := p.openRegular(os.O_RDONLY, 0)
	return f, err
}

// ReadFile reads the regular file whole. limit, which must be positive,
// is the largest size accepted: a larger file is refused with an error
// wrapping ErrTooLarge, before it is read when its size says so.
func (p Path) ReadFile(limit int64) ([]byte, error) {
	if limit <= 0 {
		return nil, fmt.Errorf("confine: read limit %d is not positive", limit)
	}
	f, fi, err := p.openRegular(os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > limit {
		return nil, p.tooLarge(fi.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, p.fix(err)
	}
	if int64(len(data)) > limit { // it grew since the fstat
		return nil, p.tooLarge(int64(len(data)), limit)
	}
	return data, nil
}

func (p Path) tooLarge(size, limit int64) error {
	return fmt.Errorf("%s is %w (%d bytes or more; the limit is %d)", p, ErrTooLarge, size, limit)
}

// WriteFile replaces the content of the regular file, creating it with
// perm when it does not exist (an existing file keeps its permissions).
// A FIFO, device or directory is refused, and left untouched.
func (p Path) WriteFile(data []byte, perm fs.FileMode) error {
	// No O_TRUNC: nothing is changed before the file is known to be
	// regular.
	f, _, err := p.openRegular(os.O_WRONLY|os.O_CREATE, perm)
	if err != nil {
		return err
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return p.fix(err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return p.fix(err)
	}
	return p.fix(f.Close())
}

// openRegular opens the file through its directory handle, non-blocking,
// and keeps it only when fstat says it is a regular file.
func (p Path) openRegular(flag int, perm fs.FileMode) (*os.File, fs.FileInfo, error) {
	if p.root == nil {
		return nil, nil, errZeroPath
	}
	f, err := p.root.OpenFile(p.rel, flag|fileFlags, perm)
	if err != nil {
		// A FIFO without a reader refuses a non-blocking writer (ENXIO),
		// and a directory refuses writing (EISDIR): say what it is.
		if fi, serr := p.root.Stat(p.rel); serr == nil && !fi.Mode().IsRegular() {
			return nil, nil, &NotRegularError{Path: p.String(), Mode: fi.Mode()}
		}
		return nil, nil, p.fix(err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, p.fix(err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, &NotRegularError{Path: p.String(), Mode: fi.Mode()}
	}
	return f, fi, nil
}

// maxSymlinks bounds symlink expansion in EvalExisting, as the kernel
// does.
const maxSymlinks = 40

// EvalExisting resolves an absolute path the way the kernel would,
// element by element: "." and ".." apply to the resolved prefix and
// symlinks are expanded. Once an element does not exist, the rest is
// appended lexically. The answer is only as good as the moment it was
// computed: open files through a Path, which is resolved again by os.Root.
func EvalExisting(p string) (string, error) {
	vol := filepath.VolumeName(p)
	sep := string(filepath.Separator)
	resolved := vol + sep
	rest := splitPath(p[len(vol):])
	links := 0
	for len(rest) > 0 {
		el := rest[0]
		rest = rest[1:]
		switch el {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, el)
		fi, err := os.Lstat(next)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				return filepath.Join(append([]string{next}, rest...)...), nil
			}
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		links++
		if links > maxSymlinks {
			return "", errors.New("too many levels of symbolic links")
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			tv := filepath.VolumeName(target)
			resolved = tv + sep
			target = target[len(tv):]
		}
		rest = append(splitPath(target), rest...)
	}
	return resolved, nil
}

func splitPath(p string) []string {
	return strings.FieldsFunc(p, func(r rune) bool { return r == filepath.Separator || r == '/' })
}

// Within reports whether p is dir or below it; both are clean and
// absolute.
func Within(dir, p string) bool {
	if p == dir {
		return true
	}
	if !strings.HasSuffix(dir, string(filepath.Separator)) {
		dir += string(filepath.Separator)
	}
	return strings.HasPrefix(p, dir)
}

// ReadRegularFile reads the file at path with the guarantees a confined
// read has, for the files cordis reads from fixed places outside any
// session directory (its own config, Claude Code's user and managed
// settings, installed plugins, git's global excludes): a FIFO or device is
// refused without waiting on it, and a file over limit bytes is refused.
// The errors do not repeat the path; callers name the file in their own
// words.
func ReadRegularFile(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|fileFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w (%s)", ErrNotRegular, Kind(fi.Mode()))
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
	}
	return data, nil
}
