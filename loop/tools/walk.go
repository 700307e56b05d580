package tools

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"path/filepath"

	"github.com/cordis-agent/cordis/internal/confine"
)

// errStopWalk ends a walk early without an error.
var errStopWalk = errors.New("stop walk")

func exists(p confine.Path) bool {
	_, err := p.Lstat()
	return err == nil
}

// walker visits the files below a directory in name order, skipping .git
// and what git ignores (.gitignore files, .git/info/exclude, the global
// excludes file), without following symlinks. Every
// directory is listed through the session's directories (confine.Path),
// so one swapped for a symlink during the walk is not followed out.
type walker struct {
	ctx context.Context
	// descend, when set, says whether to enter the directory at rel.
	descend func(rel string) bool
	// visit is called for every non-directory entry, named by its absolute
	// path as the walk spells it, its path relative to the walked
	// directory, and where it is; errStopWalk ends the walk.
	visit func(abs, rel string, d fs.DirEntry, at confine.Path) error
}

// walk walks the directory at, whose absolute path is abs.
func (w *walker) walk(at confine.Path, abs string, ignores []*ignoreFile) error {
	err := w.dir(at, abs, "", ignores)
	if errors.Is(err, errStopWalk) {
		return nil
	}
	return err
}

func (w *walker) dir(at confine.Path, abs, rel string, ignores []*ignoreFile) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	entries, err := at.ReadDir()
	if err != nil {
		return nil // unreadable directories are skipped
	}
	for _, e := range entries {
		if e.Name() == ".git" {
			// The top of a repository, the walk's own or a nested one: the
			// ignore files above it do not apply inside, its exclude files do.
			ignores = repoIgnores(at, abs)
			break
		}
	}
	if f := loadIgnore(at, abs); f != nil {
		ignores = append(ignores[:len(ignores):len(ignores)], f)
	}
	for _, e := range entries {
		// Checked per entry: a directory can hold a million files.
		if err := w.ctx.Err(); err != nil {
			return err
		}
		name := e.Name()
		if name == ".git" {
			continue
		}
		childAbs := filepath.Join(abs, name)
		childRel := path.Join(rel, name)
		if ignored(ignores, childAbs, e.IsDir()) {
			continue
		}
		if e.IsDir() {
			if w.descend != nil && !w.descend(childRel) {
				continue
			}
			if err := w.dir(at.Join(name), childAbs, childRel, ignores); err != nil {
				return err
			}
			continue
		}
		if err := w.visit(childAbs, childRel, e, at.Join(name)); err != nil {
			return err
		}
	}
	return nil
}
