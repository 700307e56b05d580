package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxSymlinks bounds symlink expansion in Resolve, as the kernel does.
const maxSymlinks = 40

// Resolve turns a path from the model into the absolute path a tool may
// touch. Claude Code asks for absolute paths; a relative path is resolved
// against Cwd for friendliness. The path is cleaned, the symlinks of its
// existing prefix are evaluated, and the result must lie inside one of
// Roots (Cwd when Roots is empty); otherwise the error says the path is
// outside the session's directories.
//
// The returned path is the cleaned path as given when that names the same
// file as the evaluated one (it has no ".." element), so the editor sees the
// paths it knows; otherwise it is the evaluated path.
func (env *Env) Resolve(path string) (string, error) {
	if path == "" {
		return "", errors.New("the path is empty")
	}
	raw := path
	if !filepath.IsAbs(raw) {
		if env.Cwd == "" || !filepath.IsAbs(env.Cwd) {
			return "", fmt.Errorf("path %s is not absolute", path)
		}
		raw = env.Cwd + string(filepath.Separator) + raw
	}
	real, err := evalExisting(raw)
	if err != nil {
		return "", fmt.Errorf("cannot resolve %s: %v", path, err)
	}
	roots := env.roots()
	if len(roots) == 0 {
		return "", fmt.Errorf("path %s cannot be used: the session has no directories", path)
	}
	inside := false
	for _, root := range roots {
		r, err := evalExisting(root)
		if err != nil {
			continue
		}
		if within(r, real) {
			inside = true
			break
		}
	}
	if !inside {
		return "", fmt.Errorf("path %s is outside the session's directories (%s)", filepath.Clean(raw), strings.Join(roots, ", "))
	}
	if hasDotDot(raw) {
		return real, nil
	}
	return filepath.Clean(raw), nil
}

func (env *Env) roots() []string {
	var out []string
	for _, r := range env.Roots {
		if r != "" && filepath.IsAbs(r) {
			out = append(out, filepath.Clean(r))
		}
	}
	if len(out) == 0 && env.Cwd != "" && filepath.IsAbs(env.Cwd) {
		out = append(out, filepath.Clean(env.Cwd))
	}
	return out
}

// within reports whether p is root or below it; both are clean and
// absolute.
func within(root, p string) bool {
	if p == root {
		return true
	}
	if !strings.HasSuffix(root, string(filepath.Separator)) {
		root += string(filepath.Separator)
	}
	return strings.HasPrefix(p, root)
}

func hasDotDot(p string) bool {
	for _, el := range strings.Split(filepath.ToSlash(p), "/") {
		if el == ".." {
			return true
		}
	}
	return false
}

// evalExisting resolves an absolute path the way the kernel would, element
// by element: "." and ".." apply to the resolved prefix and symlinks are
// expanded. Once an element does not exist, the rest is appended lexically.
func evalExisting(p string) (string, error) {
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
