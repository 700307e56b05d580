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
	err := w.dir(at, at, abs, "", ignores)
	if errors.Is(err, errStopWalk) {
		return nil
	}
	return err
}

// dir walks the directory at. near names the same directory from its
// parent's open handle (confine.Path.OpenDir), so that opening it, and
// its own subdirectories in turn, is one lookup each rather than one per
// element of the path; visits get at's children, which stay valid after
// the walk has left the directory (Grep's workers open them later).
func (w *walker) dir(at, near confine.Path, abs, rel string, ignores []*ignoreFile) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	if in, err := near.OpenDir(); err == nil {
		defer in.Close()
		near = in
	} else {
		near = at
	}
	entries, err := near.ReadDir()
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
	if f := loadIgnoreNear(near, at, abs); f != nil {
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
			if err := w.dir(at.Join(name), near.Join(name), childAbs, childRel, ignores); err != nil {
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

// loadIgnoreNear reads the directory's .gitignore through near, its own
// handle, or through at when near refuses it for another reason than
// its absence (a symlink that leads out of the directory).
func loadIgnoreNear(near, at confine.Path, dir string) *ignoreFile {
	data, err := near.Join(".gitignore").ReadFile(maxIgnoreFile)
	if err != nil && near != at && !errors.Is(err, fs.ErrNotExist) {
		data, err = at.Join(".gitignore").ReadFile(maxIgnoreFile)
	}
	if err != nil {
		return nil
	}
	return parseIgnore(data, dir)
}
