package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/cordis-agent/cordis/internal/confine"
)

// errNotExist marks a file that does not exist, whichever FileSystem was
// asked.
var errNotExist = errors.New("file does not exist")

// readText reads a whole text file of at most limit bytes through env.FS,
// or the local disk when it is nil: then through dirs, which confines the
// open to the session's directories and refuses anything but a regular
// file. A larger file gives an error wrapping confine.ErrTooLarge, before
// anything is read (its size on the local disk, which the editor shares,
// decides). A missing file gives an error wrapping errNotExist. The
// editor's error for a missing file has no standard shape, so existence is
// checked on the local disk too.
func readText(ctx context.Context, env *Env, dirs *confine.Dirs, path string, limit int64) (string, error) {
	if env.FS != nil {
		// The editor opens the file, so confinement at open time is the
		// editor's then; cordis has checked the path (Resolve) and that it
		// is a regular file (checkRegular).
		fi, serr := dirs.Stat(path)
		if serr == nil && fi.Size() > limit {
			return "", tooLarge(path, fi.Size(), limit)
		}
		s, err := env.FS.ReadTextFile(ctx, path)
		if err != nil {
			if errors.Is(serr, fs.ErrNotExist) {
				return "", fmt.Errorf("%s: %w", path, errNotExist)
			}
			return "", err
		}
		if int64(len(s)) > limit {
			return "", tooLarge(path, int64(len(s)), limit)
		}
		return s, nil
	}
	b, err := readLocal(dirs, path, limit)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s: %w", path, errNotExist)
		}
		return "", err
	}
	return unsafeString(b), nil
}

// readLocal reads the regular file at path, at most limit bytes, into a
// buffer sized from the file's size, so that it holds the content once
// (growing a buffer while reading would peak at twice or more).
func readLocal(dirs *confine.Dirs, path string, limit int64) ([]byte, error) {
	at, err := dirs.Locate(path)
	if err != nil {
		return nil, err
	}
	f, err := at.Open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > limit {
		return nil, tooLarge(path, fi.Size(), limit)
	}
	b := make([]byte, 0, fi.Size()+1) // +1: EOF is seen without growing
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if int64(len(b)) > limit { // it grew since the Stat
			return nil, tooLarge(path, int64(len(b)), limit)
		}
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

func tooLarge(path string, size, limit int64) error {
	return fmt.Errorf("%s is %w (%d bytes or more; the limit is %d)", path, confine.ErrTooLarge, size, limit)
}

// writeText writes a whole text file through env.FS, or the local disk when
// it is nil, creating missing parent directories first (on the local disk,
// through dirs, either way). A file written locally keeps its permissions;
// a new one gets 0644.
func writeText(ctx context.Context, env *Env, dirs *confine.Dirs, path, content string) error {
	if err := dirs.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if env.FS != nil {
		// The editor opens the file: confinement at open time is the
		// editor's then.
		return writeThroughEditor(ctx, env.FS, path, content)
	}
	// WriteFile only reads its argument, so the content need not be
	// copied: a Write of a large file holds it once.
	return dirs.WriteFile(path, unsafe.Slice(unsafe.StringData(content), len(content)), 0o644)
}

// unsafeString is b as a string without a copy, for a buffer nothing
// changes afterwards (a file just read): an edit of a large file then
// holds its old content once.
func unsafeString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// checkRegular returns an error for a path that exists and is not a
// regular file: a directory, or a FIFO, socket or device, which a tool
// must not open (reading a FIFO nobody writes to would wait forever). A
// path that cannot be examined is left to the open that follows.
func checkRegular(dirs *confine.Dirs, path string) error {
	fi, err := dirs.Stat(path)
	switch {
	case err != nil:
		return nil
	case fi.IsDir():
		return fmt.Errorf("%s is a directory, not a file", path)
	}
	return confine.CheckRegular(path, fi)
}

// isBinary reports whether data looks like a binary file: a NUL byte in its
// first 8000 bytes, as git and grep decide.
func isBinary(data string) bool {
	return strings.IndexByte(data[:min(len(data), 8000)], 0) >= 0
}

// displayPath is path relative to the session's working directory when it
// lies inside it, for titles; otherwise the path itself.
func displayPath(env *Env, path string) string {
	if path == "" {
		return ""
	}
	abs := path
	if !filepath.IsAbs(abs) {
		if env.Cwd == "" {
			return path
		}
		abs = filepath.Join(env.Cwd, abs)
	}
	abs = filepath.Clean(abs)
	if env.Cwd != "" {
		cwd := filepath.Clean(env.Cwd)
		if abs == cwd {
			return "."
		}
		if confine.Within(cwd, abs) {
			if rel, err := filepath.Rel(cwd, abs); err == nil {
				return filepath.ToSlash(rel)
			}
		}
	}
	return abs
}

// lexicalPath makes a model-supplied path absolute without touching the
// disk, for Describe (which must not fail).
func lexicalPath(env *Env, path string) string {
	if path == "" {
		return ""
	}
	if !filepath.IsAbs(path) && env.Cwd != "" {
		path = filepath.Join(env.Cwd, path)
	}
	return filepath.Clean(path)
}

// shorten returns the first line of s, cut to at most n characters with an
// ellipsis when anything was dropped.
func shorten(s string, n int) string {
	s = strings.TrimSpace(s)
	first, _, multi := strings.Cut(s, "\n")
	first = strings.TrimRight(first, "\r \t")
	cut := false
	if utf8.RuneCountInString(first) > n {
		r := []rune(first)
		first = strings.TrimRight(string(r[:n-1]), " ")
		cut = true
	}
	if cut || multi {
		first += "…"
	}
	return first
}

// countLines is the number of lines of s as an editor shows them (a final
// newline does not start a new line).
func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
