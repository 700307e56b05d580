package tools

import (
	"bufio"
	"context"
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/cordis-agent/cordis/internal/confine"
)

// errStopWalk ends a walk early without an error.
var errStopWalk = errors.New("stop walk")

// ignoreFile is the parsed .gitignore of one directory.
type ignoreFile struct {
	dir   string // absolute directory the patterns are relative to
	rules []ignoreRule
}

type ignoreRule struct {
	segs     []string
	negate   bool
	dirOnly  bool
	anchored bool // the pattern has a slash: match the whole relative path
}

// loadIgnore parses the .gitignore of the directory at (whose absolute
// path is dir); nil when there is none. The subset of gitignore
// understood: comments, "!" negation, a trailing "/" for directories only,
// patterns with a slash anchored to the file's directory, patterns without
// one matched against the name at any depth, and "**".
func loadIgnore(at confine.Path, dir string) *ignoreFile {
	f, err := at.Join(".gitignore").Open()
	if err != nil {
		return nil
	}
	defer f.Close()
	out := &ignoreFile{dir: dir}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \t\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var r ignoreRule
		if strings.HasPrefix(line, "!") {
			r.negate = true
			line = line[1:]
		} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly = true
			line = strings.TrimRight(line, "/")
		}
		if strings.Contains(line, "/") {
			r.anchored = true
			line = strings.TrimLeft(line, "/")
		}
		if line == "" {
			continue
		}
		valid := true
		for _, s := range strings.Split(line, "/") {
			s = negateCaret(s)
			if _, err := path.Match(s, ""); err != nil {
				valid = false
				break
			}
			r.segs = append(r.segs, s)
		}
		if valid {
			out.rules = append(out.rules, r)
		}
	}
	if len(out.rules) == 0 {
		return nil
	}
	return out
}

// ignored applies the ignore files in order (outermost first); the last
// matching rule decides.
func ignored(files []*ignoreFile, abs string, isDir bool) bool {
	ign := false
	for _, f := range files {
		if !confine.Within(f.dir, abs) || f.dir == abs {
			continue
		}
		rel := filepath.ToSlash(strings.TrimPrefix(abs[len(f.dir):], string(filepath.Separator)))
		for _, r := range f.rules {
			if r.dirOnly && !isDir {
				continue
			}
			var ok bool
			if r.anchored {
				ok = matchSegs(r.segs, splitSlash(rel))
			} else {
				ok, _ = path.Match(r.segs[0], path.Base(rel))
			}
			if ok {
				ign = !r.negate
			}
		}
	}
	return ign
}

// ancestorIgnores loads the .gitignore files above dir (located at at),
// outermost first, up to the repository's top (the first directory
// holding .git) and never outside the session's directories.
func ancestorIgnores(env *Env, dirs *confine.Dirs, dir string, at confine.Path) []*ignoreFile {
	if exists(at.Join(".git")) {
		return nil
	}
	roots := env.roots()
	var out []*ignoreFile
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		inside := false
		for _, r := range roots {
			if confine.Within(r, d) {
				inside = true
				break
			}
		}
		if !inside {
			break
		}
		up, err := dirs.Locate(d)
		if err == nil {
			if f := loadIgnore(up, d); f != nil {
				out = append(out, f)
			}
			if exists(up.Join(".git")) {
				break
			}
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

func exists(p confine.Path) bool {
	_, err := p.Lstat()
	return err == nil
}

// walker visits the files below a directory in name order, skipping .git
// and what .gitignore files exclude, without following symlinks. Every
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
	if f := loadIgnore(at, abs); f != nil {
		ignores = append(ignores[:len(ignores):len(ignores)], f)
	}
	entries, err := at.ReadDir()
	if err != nil {
		return nil // unreadable directories are skipped
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
