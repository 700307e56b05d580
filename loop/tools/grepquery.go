package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cordis-agent/cordis/internal/confine"
)

// grepMaxEntries is how many files (files_with_matches, count) a Grep
// result lists unless head_limit says otherwise; the rest are counted.
const grepMaxEntries = 100

// grepQuery is a Grep call's input worked out: what to search for, in
// which files, and how to report it.
type grepQuery struct {
	in       GrepInput
	search   *grepSearch
	suffixes []string     // type: file name suffixes (nil: any)
	filter   *globPattern // glob (nil: any)
	onPath   bool         // the glob has a slash: match the relative path
}

func newGrepQuery(in GrepInput) (*grepQuery, error) {
	if in.Pattern == "" {
		return nil, errors.New("pattern is required")
	}
	mode := in.OutputMode
	switch mode {
	case "":
		mode = "files_with_matches"
	case "content", "files_with_matches", "count":
	default:
		return nil, fmt.Errorf("output_mode must be content, files_with_matches or count, not %q", in.OutputMode)
	}
	if in.Before < 0 || in.After < 0 || in.Context < 0 || in.HeadLimit < 0 {
		return nil, errors.New("-A, -B, -C and head_limit must not be negative")
	}
	m, err := newMatcher(in.Pattern, in.IgnoreCase, in.Multiline)
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression %q: %v", in.Pattern, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	before, after := in.Context, in.Context
	if in.Before > 0 {
		before = in.Before
	}
	if in.After > 0 {
		after = in.After
	}
	q := &grepQuery{in: in, search: &grepSearch{
		m: m, multiline: in.Multiline, mode: mode, before: before, after: after,
		numbers: in.LineNumber == nil || *in.LineNumber,
	}}
	if in.Type != "" {
		var ok bool
		if q.suffixes, ok = fileTypes[strings.ToLower(in.Type)]; !ok {
			return nil, fmt.Errorf("unknown file type %q; known types: %s", in.Type, strings.Join(knownTypes(), ", "))
		}
	}
	if in.Glob != "" {
		g := filepath.ToSlash(in.Glob)
		q.onPath = strings.Contains(strings.TrimPrefix(g, "**/"), "/")
		if strings.HasPrefix(g, "**/") && !q.onPath {
			g = strings.TrimPrefix(g, "**/")
		}
		if q.filter, err = compileGlob(g); err != nil {
			return nil, fmt.Errorf("invalid glob %q: %v", in.Glob, err)
		}
	}
	return q, nil
}

// walk sends the files below root that the type and glob select to
// files, in name order, in batches of one directory's files.
func (q *grepQuery) walk(ctx context.Context, env *Env, dirs *confine.Dirs, root string, at confine.Path, files chan<- []grepFile) error {
	var batch []grepFile
	send := func() error {
		if len(batch) == 0 {
			return nil
		}
		select {
		case files <- batch:
			batch = nil
			return nil
		case <-ctx.Done():
			batch[0].in.Release()
			batch = nil
			return ctx.Err()
		}
	}
	w := walker{
		ctx: ctx,
		visit: func(abs, rel string, d fs.DirEntry, in *confine.Dir) error {
			name := d.Name()
			if q.suffixes != nil && !typeMatches(q.suffixes, name) {
				return nil
			}
			if q.filter != nil {
				subject := name
				if q.onPath {
					subject = rel
				}
				if !q.filter.match(subject) {
					return nil
				}
			}
			// Only regular files: a symlink met during the walk is not
			// followed, as ripgrep does by default (no -L); one named
			// as the path is (Run).
			if !d.Type().IsRegular() {
				return nil
			}
			if len(batch) > 0 && (batch[0].in != in || len(batch) == grepBatchFiles) {
				if err := send(); err != nil {
					return err
				}
			}
			if len(batch) == 0 {
				if !in.Retain() { // cannot happen during the visit
					return nil
				}
				batch = make([]grepFile, 0, grepBatchFiles)
			}
			batch = append(batch, grepFile{abs: abs, in: in, name: name})
			return nil
		},
	}
	err := w.walk(at, root, ancestorIgnores(env, dirs, root, at))
	if serr := send(); err == nil {
		err = serr
	}
	return err
}

// report renders the hits compactly: paths relative to the working
// directory, at most grepMaxEntries files (or head_limit lines), the
// output cut at the output limit, and a note of what was left out and
// how to narrow the search, and of any file not searched.
func (q *grepQuery) report(env *Env, all []fileHits) string {
	var hits, skipped []fileHits
	for _, h := range all {
		if h.skipped != "" {
			skipped = append(skipped, h)
		} else {
			hits = append(hits, h)
		}
	}
	if len(hits) == 0 {
		if len(skipped) == 0 {
			return "No matches found."
		}
		return "No matches found in the files searched." + skippedNote(skipped)
	}
	var out []string
	var header, footer string
	switch q.search.mode {
	case "files_with_matches":
		for _, h := range hits {
			out = append(out, h.path)
		}
		header = "Found " + plural(len(hits), "file", "files")
	case "count":
		total := 0
		for _, h := range hits {
			out = append(out, h.path+":"+strconv.Itoa(h.count))
			total += h.count
		}
		what := plural(total, "matching line", "matching lines")
		if q.in.Multiline {
			what = plural(total, "match", "matches")
		}
		footer = fmt.Sprintf("Found %s in %s", what, plural(len(hits), "file", "files"))
	case "content":
		out = q.contentLines(hits)
	}
	limit := env.OutputLimit
	if limit <= 0 {
		limit = defaultOutputLimit
	}
	return cutOutput(out, header, footer, q.shownCap(), limit) + skippedNote(skipped)
}

// shownCap is how many output lines to show at most.
func (q *grepQuery) shownCap() int {
	switch {
	case q.in.HeadLimit > 0:
		return q.in.HeadLimit
	case q.search.mode != "content":
		return grepMaxEntries
	}
	return 0
}

// contentLines joins the files' lines, with "--" between the groups of
// different files when context lines are shown, as ripgrep does.
func (q *grepQuery) contentLines(hits []fileHits) []string {
	var out []string
	context := q.search.before > 0 || q.search.after > 0
	for _, h := range hits {
		if context && len(out) > 0 {
			out = append(out, "--")
		}
		out = append(out, h.lines...)
	}
	return out
}

// cutOutput joins lines under header and above footer, keeping at most
// max lines (0: any number) and limit bytes, and says what was left out.
func cutOutput(lines []string, header, footer string, maxLines, limit int) string {
	var b strings.Builder
	if header != "" {
		b.WriteString(header + "\n")
	}
	shown := len(lines)
	if maxLines > 0 && maxLines < shown {
		shown = maxLines
	}
	cut := false
	for i, line := range lines[:shown] {
		if b.Len()+len(line) > limit {
			shown, cut = i, true
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(line)
	}
	if footer != "" {
		b.WriteString("\n\n" + footer)
	}
	if shown < len(lines) {
		why := ""
		if cut {
			why = fmt.Sprintf(" (output cut at %d bytes)", limit)
		}
		fmt.Fprintf(&b, "\n\n(%s not shown%s. Narrow the search with path, glob or type, or page with head_limit.)", plural(len(lines)-shown, "more line", "more lines"), why)
	}
	return b.String()
}

// skippedNote says which files were not searched and why, so that "no
// match" is never claimed for a file nobody looked into.
func skippedNote(skipped []fileHits) string {
	if len(skipped) == 0 {
		return ""
	}
	var names []string
	for i, h := range skipped {
		if i == 10 {
			names = append(names, fmt.Sprintf("and %d more", len(skipped)-i))
			break
		}
		names = append(names, h.path+" ("+h.skipped+")")
	}
	return fmt.Sprintf("\n\n(%s not searched: %s.)", plural(len(skipped), "file was", "files were"), strings.Join(names, "; "))
}
