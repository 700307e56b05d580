package tools

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

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
// excludes file), without following symlinks. Every directory is opened
// from its parent's open handle (confine.Dir), one lookup each, so one
// swapped for a symlink during the walk is not followed out, and listed
// with the types the directory reports (no stat per entry).
type walker struct {
	ctx context.Context
	// descend, when set, says whether to enter the directory at rel.
	descend func(rel string) bool
	// visit is called for every non-directory entry, named by its absolute
	// path as the walk spells it and its path relative to the walked
	// directory, with the directory holding it (held during the call;
	// Retain it to open the file later); errStopWalk ends the walk.
	visit func(abs, rel string, e fs.DirEntry, in *confine.Dir) error
}

// walk walks the directory at, whose absolute path is abs.
func (w *walker) walk(at confine.Path, abs string, ignores []*ignoreFile) error {
	top, err := at.OpenHandle()
	if err != nil {
		return nil // an unreadable directory holds nothing to visit
	}
	err = w.dir(top, abs, "", ignores)
	if errors.Is(err, errStopWalk) {
		return nil
	}
	return err
}

// dir walks the directory in, whose absolute path is abs, and releases
// it.
func (w *walker) dir(in *confine.Dir, abs, rel string, ignores []*ignoreFile) error {
	defer in.Release()
	if err := w.ctx.Err(); err != nil {
		return err
	}
	entries, err := in.Entries()
	if err != nil {
		return nil // unreadable directories are skipped
	}
	hasIgnore := false
	for _, e := range entries {
		switch e.Name() {
		case ".git":
			// The top of a repository, the walk's own or a nested one: the
			// ignore files above it do not apply inside, its exclude files do.
			ignores = repoIgnores(in.Path(), abs)
		case ".gitignore":
			hasIgnore = true
		}
	}
	if hasIgnore {
		if f := loadIgnoreIn(in, abs); f != nil {
			ignores = append(ignores[:len(ignores):len(ignores)], f)
		}
	}
	sep := string(filepath.Separator)
	if strings.HasSuffix(abs, sep) {
		sep = ""
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
		// Names from a listing are single elements: joined by hand, as
		// filepath.Join would clean nothing.
		childAbs := abs + sep + name
		childRel := name
		if rel != "" {
			childRel = rel + "/" + name
		}
		if len(ignores) > 0 && ignored(ignores, childAbs, e.IsDir()) {
			continue
		}
		if e.IsDir() {
			if w.descend != nil && !w.descend(childRel) {
				continue
			}
			sub, err := in.Sub(name)
			if err != nil {
				continue // unreadable, or no longer a directory
			}
			if err := w.dir(sub, childAbs, childRel, ignores); err != nil {
				return err
			}
			continue
		}
		if err := w.visit(childAbs, childRel, e, in); err != nil {
			return err
		}
	}
	return nil
}

// loadIgnoreIn reads the .gitignore of the directory in, through its
// handle, or through its Path when it is a symlink (which the handle does
// not follow; the Path follows it while it stays inside).
func loadIgnoreIn(in *confine.Dir, dir string) *ignoreFile {
	var data []byte
	f, err := in.OpenFile(".gitignore")
	if err == nil {
		defer f.Close()
		if f.Size() <= maxIgnoreFile {
			data, err = io.ReadAll(io.LimitReader(f, maxIgnoreFile))
		}
	} else {
		data, err = in.Path().Join(".gitignore").ReadFile(maxIgnoreFile)
	}
	if err != nil {
		return nil
	}
	return parseIgnore(data, dir)
}
