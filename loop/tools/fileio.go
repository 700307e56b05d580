package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/cordis-agent/cordis/internal/confine"
)

// errNotExist marks a file that does not exist, whichever FileSystem was
// asked.
var errNotExist = errors.New("file does not exist")

// readText reads a whole text file through env.FS, or the local disk when
// it is nil: then through dirs, which confines the open to the session's
// directories, refuses anything but a regular file and caps the size at
// readMaxFileBytes. A missing file gives an error wrapping errNotExist.
// The editor's error for a missing file has no standard shape, so
// existence is checked on the local disk, which the editor shares with
// the agent.
func readText(ctx context.Context, env *Env, dirs *confine.Dirs, path string) (string, error) {
	if env.FS != nil {
		// The editor opens the file, so confinement at open time is the
		// editor's then; cordis has checked the path (Resolve) and that it
		// is a regular file (checkRegular).
		s, err := env.FS.ReadTextFile(ctx, path)
		if err != nil {
			if _, serr := dirs.Stat(path); errors.Is(serr, fs.ErrNotExist) {
				return "", fmt.Errorf("%s: %w", path, errNotExist)
			}
			return "", err
		}
		return s, nil
	}
	b, err := dirs.ReadFile(path, readMaxFileBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s: %w", path, errNotExist)
		}
		return "", err
	}
	return string(b), nil
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
		return env.FS.WriteTextFile(ctx, path, content)
	}
	return dirs.WriteFile(path, []byte(content), 0o644)
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
