package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// projectProtected are the paths, relative to each writable root, that make
// a program run later, outside any sandbox: git's configuration and hooks
// (core.fsmonitor, core.pager, diff.external and textconv drivers run on
// the user's next git status or diff), the agents' and editors' own
// settings (hooks, MCP servers, tasks), and tools that run files on entry
// or on commit. A confined command may not write them, and acceptEdits
// never approves an edit of them without asking.
var projectProtected = []string{
	".git/config", ".git/hooks", ".git/info", ".gitmodules", ".gitattributes",
	".claude", ".mcp.json", ".codex", "cordis.yml", ".cordis",
	".vscode", ".idea", ".devcontainer", ".envrc", ".husky", ".pre-commit-config.yaml",
}

// homeProtected are the same for the home directory, when it is writable:
// shell start-up files, git's and ssh's configuration, the agents' own.
var homeProtected = []string{
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
	".zshrc", ".zprofile", ".zshenv", ".zlogin", ".gitconfig", ".config/git",
	".ssh", ".claude", ".claude.json", ".codex", ".config/cordis",
}

// ProtectedPaths lists, for the writable roots and the home directory
// ("" for none), the absolute paths a confined command may not write.
// Paths under home are listed only when home is inside a root.
func ProtectedPaths(roots []string, home string) []string {
	var out []string
	for _, r := range roots {
		for _, rel := range projectProtected {
			out = append(out, filepath.Join(r, rel))
		}
		// A linked worktree or submodule has a .git file naming its real
		// directory: the file itself is what git follows.
		if info, err := os.Lstat(filepath.Join(r, ".git")); err == nil && !info.IsDir() {
			out = append(out, filepath.Join(r, ".git"))
		}
	}
	if home != "" {
		for _, r := range roots {
			if r == home || within(home, r) {
				for _, rel := range homeProtected {
					out = append(out, filepath.Join(home, rel))
				}
				break
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// IsProtected reports whether path (absolute, cleaned) is one a confined
// command may not write: a ProtectedPaths entry of one of roots, something
// beneath one, or anything inside a .git directory at any depth (a nested
// repository's configuration runs programs as the top one's does).
func IsProtected(path string, roots []string, home string) bool {
	path = filepath.Clean(path)
	for _, seg := range strings.Split(path, string(filepath.Separator)) {
		if seg == ".git" {
			return true
		}
	}
	for _, p := range ProtectedPaths(roots, home) {
		if path == p || within(path, p) {
			return true
		}
	}
	return false
}

// within reports whether path is strictly beneath dir.
func within(path, dir string) bool {
	if dir == "/" {
		return path != "/" && strings.HasPrefix(path, "/")
	}
	return strings.HasPrefix(path, dir+"/")
}
