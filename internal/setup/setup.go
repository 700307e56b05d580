package setup

import (
	"os"
	"path/filepath"
	"slices"
)

// Source is one place a setup keeps files of one kind.
type Source struct {
	// Path is absolute for a user source; a project source's is relative
	// to the project directory.
	Path string
	// Project marks a source inside the project, which is untrusted: read
	// confined to the project, its grants counted only once trusted.
	Project bool
	// UpToRepo marks a project source that is also looked for in each
	// folder above the project directory, up to the root of the git
	// repository holding it (Codex's .agents/skills): see Above.
	UpToRepo bool
}

// User is a source of the user's at the absolute path.
func User(path string) Source { return Source{Path: path} }

// Project is a source of the project's at rel, relative to its directory.
func Project(rel string) Source { return Source{Path: rel, Project: true} }

// In returns the source's path for the project at dir (a user source's
// path does not depend on it).
func (s Source) In(dir string) string {
	if s.Project {
		return filepath.Join(dir, s.Path)
	}
	return s.Path
}

// ProjectUpToRepo is a project source at rel that is also looked for in
// the folders above the project up to its repository's root.
func ProjectUpToRepo(rel string) Source { return Source{Path: rel, Project: true, UpToRepo: true} }

// Above returns, for an UpToRepo source, its paths in the folders above
// dir up to the root of the git repository holding dir (the nearest
// folder with a .git entry), nearest first, and that root, to which
// reading them is confined. Anything else, or a dir outside a repository
// or at its root, has none.
func (s Source) Above(dir string) (paths []string, root string) {
	if !s.UpToRepo {
		return nil, ""
	}
	root = RepoRoot(dir)
	if root == "" || root == dir {
		return nil, ""
	}
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		paths = append(paths, filepath.Join(d, s.Path))
		if d == root || d == filepath.Dir(d) {
			return paths, root
		}
	}
}

// RepoRoot is the root of the git repository holding dir: dir or the
// nearest folder above it with a .git entry (a folder, or a worktree's
// file); "" when there is none.
func RepoRoot(dir string) string {
	for d := filepath.Clean(dir); ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// CordisCommands are cordis's own command folders: the project's
// .cordis/commands and the user's ~/.cordis/commands ("" home: none).
func CordisCommands(home string) []Source {
	out := []Source{Project(filepath.Join(".cordis", "commands"))}
	if home != "" {
		out = append(out, User(filepath.Join(home, ".cordis", "commands")))
	}
	return out
}

// ProjectFirst concatenates lists and moves every project source before
// every user source, keeping the order within each: cordis's commands
// over Claude Code's in the project, then the same for the user's.
func ProjectFirst(lists ...[]Source) []Source {
	all := slices.Concat(lists...)
	slices.SortStableFunc(all, func(a, b Source) int {
		switch {
		case a.Project == b.Project:
			return 0
		case a.Project:
			return -1
		}
		return 1
	})
	return all
}

// Bundle is a named set of the user's folders (a Claude Code plugin):
// the commands, skills and subagents found in them are named
// "<Name>:<name>", and Vars (NAME=value) are substituted as ${NAME} in
// their text. Its folders are absolute and read as the user's own.
type Bundle struct {
	Name string
	// Root is the bundle's folder, which the model may read (its skills'
	// scripts and references).
	Root                     string
	Commands, Skills, Agents []string
	Vars                     []string
}
