package tools

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cordis-agent/cordis/internal/confine"
)

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
//
// Resolve is a check, and the file system can change right after it: the
// tools open files on the local disk through Env.confined, which confines
// them again at open time.
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
	real, err := confine.EvalExisting(raw)
	if err != nil {
		return "", fmt.Errorf("cannot resolve %s: %v", path, err)
	}
	roots := env.roots()
	if len(roots) == 0 {
		return "", fmt.Errorf("path %s cannot be used: the session has no directories", path)
	}
	inside := false
	for _, root := range roots {
		r, err := confine.EvalExisting(root)
		if err != nil {
			continue
		}
		if confine.Within(r, real) {
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

func hasDotDot(p string) bool {
	for _, el := range strings.Split(filepath.ToSlash(p), "/") {
		if el == ".." {
			return true
		}
	}
	return false
}

// confined returns the session's directories for opening files on the
// local disk. Every local file operation of a tool goes through it, so a
// symlink swapped in after Resolve cannot lead outside (see
// internal/confine). It is built per call, which costs one open of each
// directory used; the caller closes it.
func (env *Env) confined() *confine.Dirs {
	return confine.New(env.roots()...)
}
