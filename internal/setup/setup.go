package setup

import (
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
