package tools

import (
	"bytes"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cordis-agent/cordis/internal/confine"
)

// ignoreFile is the parsed .gitignore of one directory, or an exclude
// file (.git/info/exclude, the global excludes file) applied at the top
// of a repository.
type ignoreFile struct {
	dir   string // absolute directory the patterns are relative to
	rules []ignoreRule
}

type ignoreRule struct {
	segs     []string
	negate   bool
	dirOnly  bool
	anchored bool // the pattern has a slash: match the whole relative path
	spans    bool // a "**" segment: the path may have any number of segments
}

// maxIgnoreFile bounds the size of an ignore file read.
const maxIgnoreFile = 4 << 20

// loadIgnore parses the .gitignore of the directory at (whose absolute
// path is dir); nil when there is none.
func loadIgnore(at confine.Path, dir string) *ignoreFile {
	data, err := at.Join(".gitignore").ReadFile(maxIgnoreFile)
	if err != nil {
		return nil
	}
	return parseIgnore(data, dir)
}

// parseIgnore parses ignore patterns as git does (gitignore(5)):
// comments, "!" negation, "\" escapes, trailing spaces trimmed unless
// escaped, a trailing "/" for directories only, patterns with a slash
// anchored to the file's directory, patterns without one matched against
// the name at any depth, and "**" as a whole segment. nil when there are
// no rules.
func parseIgnore(data []byte, dir string) *ignoreFile {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	out := &ignoreFile{dir: dir}
	for _, line := range strings.Split(string(data), "\n") {
		if r, ok := parseIgnoreLine(line); ok {
			out.rules = append(out.rules, r)
		}
	}
	if len(out.rules) == 0 {
		return nil
	}
	return out
}

func parseIgnoreLine(line string) (ignoreRule, bool) {
	var r ignoreRule
	// A CRLF file is read as git on Windows reads it.
	line = trimTrailingSpaces(strings.TrimSuffix(line, "\r"))
	if line == "" || line[0] == '#' {
		return r, false
	}
	if line[0] == '!' {
		r.negate = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly = true
		line = line[:len(line)-1]
	}
	if strings.Contains(line, "/") {
		r.anchored = true
		line = strings.TrimPrefix(line, "/")
	}
	if line == "" {
		return r, false
	}
	literal := true // no wildcard so far
	for _, s := range strings.Split(line, "/") {
		// git matches the literal start of a pattern apart, so a "**" that
		// follows it and ends the segment ("m**/n", "/q**") spans
		// directories as if it began the pattern.
		if stars := len(s) - len(strings.TrimRight(s, "*")); r.anchored && literal && stars >= 2 && stars < len(s) && !hasMeta(s[:len(s)-stars]) {
			r.segs = append(r.segs, s[:len(s)-stars]+"*", "**")
			literal = false
			continue
		}
		if hasMeta(s) {
			literal = false
		}
		s, ok := gitClasses(s)
		if !ok {
			return r, false
		}
		if _, err := path.Match(s, ""); err != nil {
			return r, false
		}
		r.segs = append(r.segs, s)
	}
	// A trailing "/**" matches everything inside, not the directory
	// itself: at least one more segment.
	if n := len(r.segs); r.anchored && n > 1 && r.segs[n-1] == "**" && r.segs[n-2] != "**" {
		r.segs = append(r.segs[:n-1], "*", "**")
	}
	r.spans = slices.Contains(r.segs, "**")
	return r, true
}

// posixClasses are the character classes git's wildmatch knows, as the
// ASCII ranges they stand for.
var posixClasses = map[string]string{
	"alnum":  "09azAZ",
	"alpha":  "azAZ",
	"blank":  "  \t\t",
	"cntrl":  "\x00\x1f\x7f\x7f",
	"digit":  "09",
	"graph":  "!~",
	"lower":  "az",
	"print":  " ~",
	"punct":  "!/:@[`{~",
	"space":  "\t\r  ",
	"upper":  "AZ",
	"xdigit": "09afAF",
}

// gitClasses rewrites the bracket expressions of a pattern segment, read
// as git's wildmatch reads them ("!" or "^" to negate, a "]" first is a
// member, "[:digit:]" and the other POSIX classes, "\" escapes), into the
// syntax of path.Match, every member escaped. ok is false for a pattern
// git never matches (an unclosed class, an unknown POSIX class).
func gitClasses(seg string) (string, bool) {
	if !strings.Contains(seg, "[") {
		return seg, true
	}
	p := []rune(seg)
	var b strings.Builder
	esc := func(r rune) {
		b.WriteByte('\\')
		b.WriteRune(r)
	}
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			b.WriteRune(p[i])
			if i+1 < len(p) {
				i++
				b.WriteRune(p[i])
			}
			continue
		case '[':
		default:
			b.WriteRune(p[i])
			continue
		}
		// A class: i is at "[".
		b.WriteByte('[')
		i++
		if i < len(p) && (p[i] == '!' || p[i] == '^') {
			b.WriteByte('^')
			i++
		}
		var prev rune = -1 // the last single member, which may start a range
		for first := true; ; first = false {
			if i >= len(p) {
				return "", false
			}
			c := p[i]
			if c == ']' && !first {
				break
			}
			switch {
			case c == '\\':
				i++
				if i >= len(p) {
					return "", false
				}
				esc(p[i])
				prev = p[i]
			case c == '-' && prev >= 0 && i+1 < len(p) && p[i+1] != ']':
				i++
				hi := p[i]
				if hi == '\\' {
					i++
					if i >= len(p) {
						return "", false
					}
					hi = p[i]
				}
				b.WriteByte('-')
				esc(hi)
				prev = -1
			case c == '[' && i+1 < len(p) && p[i+1] == ':':
				end := -1
				for j := i + 2; j < len(p); j++ {
					if p[j] == ']' {
						end = j
						break
					}
				}
				if end < 0 {
					return "", false
				}
				if p[end-1] != ':' || end-1 < i+2 {
					esc('[') // not "[:name:]": a plain "["
					prev = '['
					break
				}
				ranges, known := posixClasses[string(p[i+2:end-1])]
				if !known {
					return "", false
				}
				rs := []rune(ranges)
				for k := 0; k+1 < len(rs); k += 2 {
					esc(rs[k])
					b.WriteByte('-')
					esc(rs[k+1])
				}
				i = end
				prev = -1
			default:
				esc(c)
				prev = c
			}
			i++
		}
		b.WriteByte(']')
	}
	return b.String(), true
}

// trimTrailingSpaces drops the trailing spaces of a pattern that are not
// escaped with a backslash, as git does.
func trimTrailingSpaces(s string) string {
	end := len(s)
	lastSpace := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if lastSpace < 0 {
				lastSpace = i
			}
		case '\\':
			i++
			if i >= len(s) {
				return s
			}
			lastSpace = -1
		default:
			lastSpace = -1
		}
	}
	if lastSpace >= 0 {
		end = lastSpace
	}
	return s[:end]
}

// ignored applies the ignore files in order (lowest precedence first:
// global excludes, .git/info/exclude, then the .gitignore files from the
// outermost in); the last matching rule decides.
func ignored(files []*ignoreFile, abs string, isDir bool) bool {
	ign := false
	for _, f := range files {
		if !confine.Within(f.dir, abs) || f.dir == abs {
			continue
		}
		rel := filepath.ToSlash(strings.TrimPrefix(abs[len(f.dir):], string(filepath.Separator)))
		// Called for every entry of a walk: the path is split only for a
		// rule that can match its number of segments.
		depth := strings.Count(rel, "/") + 1
		base := rel[strings.LastIndexByte(rel, '/')+1:]
		var segs []string
		for _, r := range f.rules {
			if r.dirOnly && !isDir || ign == !r.negate {
				continue // does not apply, or cannot change the answer
			}
			var ok bool
			switch {
			case r.anchored && !r.spans && len(r.segs) != depth:
			case r.anchored:
				if segs == nil {
					segs = splitSlash(rel)
				}
				ok = matchSegs(r.segs, segs)
			default:
				ok, _ = path.Match(r.segs[0], base)
			}
			if ok {
				ign = !r.negate
			}
		}
	}
	return ign
}

// repoIgnores returns the exclude files of the repository whose top is
// dir (located at at), in precedence order: the global excludes file,
// then .git/info/exclude. The repository's own file is read through the
// session's directories; the global one is the user's and read as is.
func repoIgnores(at confine.Path, dir string) []*ignoreFile {
	var out []*ignoreFile
	if p := globalExcludesFile(); p != "" {
		if data, err := confine.ReadRegularFile(p, maxIgnoreFile); err == nil {
			if f := parseIgnore(data, dir); f != nil {
				out = append(out, f)
			}
		}
	}
	if fi, err := at.Join(".git").Lstat(); err == nil && fi.IsDir() {
		if data, err := at.Join(".git", "info", "exclude").ReadFile(maxIgnoreFile); err == nil {
			if f := parseIgnore(data, dir); f != nil {
				out = append(out, f)
			}
		}
	}
	return out
}

// globalExcludesFile returns the path of the user's global excludes
// file: core.excludesFile from $XDG_CONFIG_HOME/git/config and then
// ~/.gitconfig (the later wins, as in git), else git's default,
// $XDG_CONFIG_HOME/git/ignore or ~/.config/git/ignore. "" when there is
// none to read.
func globalExcludesFile() string {
	home := os.Getenv("HOME")
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	value, set := "", false
	var configs []string
	if xdg != "" {
		configs = append(configs, filepath.Join(xdg, "git", "config"))
	}
	if home != "" {
		configs = append(configs, filepath.Join(home, ".gitconfig"))
	}
	for _, c := range configs {
		if v, ok := configExcludesFile(c); ok {
			value, set = v, true
		}
	}
	if !set {
		if xdg == "" {
			return ""
		}
		return filepath.Join(xdg, "git", "ignore")
	}
	switch {
	case value == "":
		return ""
	case value == "~" || strings.HasPrefix(value, "~/"):
		if home == "" {
			return ""
		}
		return filepath.Join(home, value[1:])
	case !filepath.IsAbs(value):
		return "" // relative to an unknown directory; git resolves it per command
	}
	return value
}

// configExcludesFile reads core.excludesFile from a git config file: the
// simple syntax only (sections, "key = value" lines, quotes, comments);
// includes are not followed.
func configExcludesFile(name string) (string, bool) {
	data, err := confine.ReadRegularFile(name, 1<<20)
	if err != nil {
		return "", false
	}
	value, found := "", false
	inCore := false
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				inCore = false
				continue
			}
			inCore = strings.EqualFold(strings.TrimSpace(line[1:end]), "core")
			line = strings.TrimSpace(line[end+1:])
			if line == "" || line[0] == '#' || line[0] == ';' {
				continue
			}
		}
		if !inCore {
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(key), "excludesfile") {
			continue
		}
		value, found = configValue(strings.TrimSpace(val)), true
	}
	return value, found
}

// configValue unquotes a git config value and drops a trailing comment.
func configValue(v string) string {
	var b strings.Builder
	quoted := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '"':
			quoted = !quoted
		case c == '\\' && i+1 < len(v):
			i++
			switch v[i] {
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			default:
				b.WriteByte(v[i])
			}
		case (c == '#' || c == ';') && !quoted:
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}

// ancestorIgnores loads the ignore files that apply to dir (located at
// at) from above it: the .gitignore files of its ancestors up to the
// repository's top (the first directory holding .git), never outside the
// session's directories, and that repository's exclude files; lowest
// precedence first. A dir that is itself a repository's top gets its
// exclude files from the walk.
func ancestorIgnores(env *Env, dirs *confine.Dirs, dir string, at confine.Path) []*ignoreFile {
	if exists(at.Join(".git")) {
		return nil
	}
	roots := env.roots()
	var out []*ignoreFile
	var repo []*ignoreFile
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
				repo = repoIgnores(up, d)
				break
			}
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	slices.Reverse(out)
	return append(repo, out...)
}
