package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// errNotExist marks a file that does not exist, whichever FileSystem was
// asked.
var errNotExist = errors.New("file does not exist")

// readText reads a whole text file through env.FS, or the local disk when
// it is nil. A missing file gives an error wrapping errNotExist. The editor's
// error for a missing file has no standard shape, so existence is checked on
// the local disk, which the editor shares with the agent.
func readText(ctx context.Context, env *Env, path string) (string, error) {
	if env.FS != nil {
		s, err := env.FS.ReadTextFile(ctx, path)
		if err != nil {
			if _, serr := os.Stat(path); errors.Is(serr, fs.ErrNotExist) {
				return "", fmt.Errorf("%s: %w", path, errNotExist)
			}
			return "", err
		}
		return s, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s: %w", path, errNotExist)
		}
		return "", err
	}
	return string(b), nil
}

// writeText writes a whole text file through env.FS, or the local disk when
// it is nil, creating missing parent directories first. A file written
// locally keeps its permissions; a new one gets 0644.
func writeText(ctx context.Context, env *Env, path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if env.FS != nil {
		return env.FS.WriteTextFile(ctx, path, content)
	}
	return os.WriteFile(path, []byte(content), 0o644)
}

// checkNotDir returns an error for a path that is a directory.
func checkNotDir(path, hint string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory, not a file%s", path, hint)
	}
	return nil
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
		if within(cwd, abs) {
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
