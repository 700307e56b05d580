package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cordis-agent/cordis/internal/confine"
)

// GlobInput is the Glob tool's input (Claude Code's shape).
type GlobInput struct {
	Pattern string `json:"pattern" jsonschema_description:"The glob pattern to match files against, for example **/*.go or src/**/*.{ts,tsx}."`
	Path    string `json:"path,omitempty" jsonschema_description:"The directory to search in. Omit it to search the current working directory (do not pass null or \"undefined\")."`
}

const (
	// globMaxResults keeps a result about as compact as Claude Code's;
	// the note says how many more matched and how to narrow.
	globMaxResults = 100
	// globMaxCollect bounds the matches held in memory before sorting.
	globMaxCollect = 100000
)

var globSpec = specFor[GlobInput]()

type globTool struct{}

func (globTool) Name() string { return "Glob" }

func (globTool) Description() string {
	return `Finds files by name with a glob pattern and returns their paths (relative to the working directory, absolute outside it), most recently modified first.

- "**" matches any number of directories, "*" and "?" match within one path element, "[...]" matches a character class and "{a,b}" gives alternatives: for example "**/*.go" or "src/**/*.{ts,tsx}".
- Patterns are relative to path (the working directory when omitted); an absolute pattern is allowed too.
- Files excluded by .gitignore and the .git directory are skipped; only files are listed, not directories.
- At most 100 paths are returned, with the number of further matches.
- Use Grep to search file contents.`
}

func (globTool) Schema() json.RawMessage { return globSpec.schema() }
func (globTool) Kind() Kind              { return KindSearch }
func (globTool) ReadOnly() bool          { return true }

func (globTool) Describe(env *Env, input json.RawMessage) Description {
	var in GlobInput
	describeInput(input, &in)
	if in.Pattern == "" {
		return Description{Title: "Glob"}
	}
	d := Description{Title: fmt.Sprintf("Glob %q", in.Pattern)}
	if in.Path != "" {
		d.Title += " in " + displayPath(env, in.Path)
		d.Locations = []Location{{Path: lexicalPath(env, in.Path)}}
	}
	return d
}

type globMatch struct {
	path  string
	mtime time.Time
}

func (t globTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	var in GlobInput
	if err := globSpec.decode(t.Name(), input, &in); err != nil {
		return Errorf("%v", err)
	}
	if in.Pattern == "" {
		return Errorf("Glob: pattern is required")
	}
	base := in.Path
	if base == "" {
		base = env.Cwd
	}
	pattern := filepath.ToSlash(in.Pattern)
	if strings.HasPrefix(pattern, "/") {
		base, pattern = "/", pattern[1:]
	}
	// Move the literal leading elements of the pattern into the base, so
	// that an absolute or "../x/**" pattern is confined like a path.
	segs := strings.Split(pattern, "/")
	lit := 0
	for lit < len(segs)-1 && !hasMeta(segs[lit]) {
		lit++
	}
	if lit > 0 {
		base = filepath.Join(base, filepath.FromSlash(strings.Join(segs[:lit], "/")))
		pattern = strings.Join(segs[lit:], "/")
	}
	dir, err := env.Resolve(base)
	if err != nil {
		return Errorf("Glob: %v", err)
	}
	dirs := env.confined()
	defer dirs.Close()
	at, err := dirs.Locate(dir)
	if err != nil {
		return Errorf("Glob: %v", err)
	}
	fi, err := at.Stat()
	if err != nil {
		return Errorf("Glob: directory %s does not exist", dir)
	}
	if !fi.IsDir() {
		return Errorf("Glob: %s is not a directory", dir)
	}
	g, err := compileGlob(pattern)
	if err != nil {
		return Errorf("Glob: invalid pattern %q: %v", in.Pattern, err)
	}

	var matches []globMatch
	overflow := false
	w := walker{
		ctx:     ctx,
		descend: g.mayMatchBelow,
		visit: func(abs, rel string, d fs.DirEntry, _ *confine.Dir) error {
			// Symlinks met during the walk are not listed or followed, as
			// in ripgrep's default (rg --files without -L); the directory
			// named as the path may be one.
			if d.Type()&fs.ModeSymlink != 0 || !g.match(rel) {
				return nil
			}
			if len(matches) >= globMaxCollect {
				overflow = true
				return errStopWalk
			}
			m := globMatch{path: displayPath(env, abs)}
			if info, err := d.Info(); err == nil {
				m.mtime = info.ModTime()
			}
			matches = append(matches, m)
			return nil
		},
	}
	if err := w.walk(at, dir, ancestorIgnores(env, dirs, dir, at)); err != nil {
		if ctx.Err() != nil {
			return Errorf("Glob was cancelled.")
		}
		return Errorf("Glob: %v", err)
	}
	return Result{Text: globReport(in.Pattern, dir, matches, overflow)}
}

// globReport lists the matches, most recently modified first (ties by
// path), at most globMaxResults, with a note of how many more there are.
func globReport(pattern, dir string, matches []globMatch, overflow bool) string {
	if len(matches) == 0 {
		return fmt.Sprintf("No files found matching %q in %s.", pattern, dir)
	}
	slices.SortFunc(matches, func(a, b globMatch) int {
		if c := b.mtime.Compare(a.mtime); c != 0 {
			return c
		}
		return cmp.Compare(a.path, b.path)
	})
	total := len(matches)
	shown := matches[:min(total, globMaxResults)]
	var b strings.Builder
	for i, m := range shown {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(m.path)
	}
	switch {
	case overflow:
		fmt.Fprintf(&b, "\n\n(Showing the %d most recent of more than %d matches. Use a more specific pattern or path.)", len(shown), globMaxCollect)
	case total > len(shown):
		fmt.Fprintf(&b, "\n\n(Showing the %d most recent of %d matches; %d more not shown. Use a more specific pattern or path.)", len(shown), total, total-len(shown))
	}
	return b.String()
}
