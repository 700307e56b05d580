package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cordis-agent/cordis/internal/confine"
)

// GrepInput is the Grep tool's input (Claude Code's shape, after ripgrep's
// flags).
type GrepInput struct {
	Pattern    string `json:"pattern" jsonschema_description:"The regular expression to search file contents for (Go RE2 syntax, close to ripgrep's)."`
	Path       string `json:"path,omitempty" jsonschema_description:"The file or directory to search. Defaults to the current working directory."`
	Glob       string `json:"glob,omitempty" jsonschema_description:"Only search files whose name matches this glob (for example *.js or *.{ts,tsx}); a glob with a slash is matched against the path relative to the searched directory."`
	OutputMode string `json:"output_mode,omitempty" jsonschema:"enum=content,enum=files_with_matches,enum=count" jsonschema_description:"content shows matching lines; files_with_matches (the default) lists the files that match; count gives the number of matching lines per file."`
	Before     int    `json:"-B,omitempty" jsonschema:"minimum=0" jsonschema_description:"Lines of context to show before each match (content mode only)."`
	After      int    `json:"-A,omitempty" jsonschema:"minimum=0" jsonschema_description:"Lines of context to show after each match (content mode only)."`
	Context    int    `json:"-C,omitempty" jsonschema:"minimum=0" jsonschema_description:"Lines of context to show before and after each match (content mode only)."`
	LineNumber *bool  `json:"-n,omitempty" jsonschema_description:"Show line numbers in content mode (default true)."`
	IgnoreCase bool   `json:"-i,omitempty" jsonschema_description:"Match case-insensitively."`
	Type       string `json:"type,omitempty" jsonschema_description:"Only search files of this type, as ripgrep names them: go, py, js, ts, rust, java, c, cpp, md, json, yaml and so on. More efficient than glob for standard file types."`
	HeadLimit  int    `json:"head_limit,omitempty" jsonschema:"minimum=0" jsonschema_description:"Keep only the first N lines of the output (entries in files_with_matches and count modes), like | head -N."`
	Multiline  bool   `json:"multiline,omitempty" jsonschema_description:"Let the pattern span lines: . also matches newlines (like rg -U --multiline-dotall). Off by default: patterns match within single lines."`
}

const (
	grepMaxLineChars = 500
	grepMaxFileBytes = 20 << 20
)

var grepSpec = specFor[GrepInput]()

// fileTypes maps ripgrep type names to file name suffixes (or, for entries
// without a leading dot, whole names).
var fileTypes = map[string][]string{
	"c":          {".c", ".h"},
	"cpp":        {".cpp", ".cc", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h", ".inl"},
	"cs":         {".cs"},
	"csharp":     {".cs"},
	"css":        {".css", ".scss", ".sass", ".less"},
	"dart":       {".dart"},
	"docker":     {"Dockerfile", ".dockerfile"},
	"elixir":     {".ex", ".exs"},
	"erlang":     {".erl", ".hrl"},
	"go":         {".go"},
	"graphql":    {".graphql", ".gql"},
	"haskell":    {".hs", ".lhs"},
	"html":       {".html", ".htm", ".xhtml"},
	"java":       {".java"},
	"js":         {".js", ".mjs", ".cjs", ".jsx"},
	"json":       {".json", ".jsonl"},
	"kotlin":     {".kt", ".kts"},
	"lua":        {".lua"},
	"make":       {"Makefile", "makefile", "GNUmakefile", ".mk", ".mak"},
	"markdown":   {".md", ".markdown", ".mdx"},
	"md":         {".md", ".markdown", ".mdx"},
	"ocaml":      {".ml", ".mli"},
	"php":        {".php"},
	"proto":      {".proto"},
	"py":         {".py", ".pyi"},
	"python":     {".py", ".pyi"},
	"rb":         {".rb", ".gemspec", "Gemfile", "Rakefile"},
	"ruby":       {".rb", ".gemspec", "Gemfile", "Rakefile"},
	"rs":         {".rs"},
	"rust":       {".rs"},
	"scala":      {".scala", ".sc"},
	"sh":         {".sh", ".bash", ".zsh"},
	"sql":        {".sql"},
	"svelte":     {".svelte"},
	"swift":      {".swift"},
	"tf":         {".tf", ".tfvars"},
	"toml":       {".toml"},
	"ts":         {".ts", ".tsx", ".mts", ".cts"},
	"tsx":        {".tsx"},
	"txt":        {".txt"},
	"typescript": {".ts", ".tsx", ".mts", ".cts"},
	"vue":        {".vue"},
	"xml":        {".xml", ".xsd", ".xsl", ".svg"},
	"yaml":       {".yaml", ".yml"},
	"yml":        {".yaml", ".yml"},
	"zig":        {".zig"},
}

func typeMatches(suffixes []string, name string) bool {
	for _, s := range suffixes {
		if strings.HasPrefix(s, ".") {
			if strings.HasSuffix(name, s) {
				return true
			}
		} else if name == s {
			return true
		}
	}
	return false
}

type grepTool struct{}

func (grepTool) Name() string { return "Grep" }

func (grepTool) Description() string {
	return `Searches file contents with a regular expression, in the style of ripgrep.

- Use it for every content search instead of running grep or rg through Bash.
- The pattern is a Go (RE2) regular expression: "log.*Error", "func\s+\w+". Escape literal braces and brackets (interface\{\}).
- Narrow the files with glob ("*.go", "**/*.{ts,tsx}") or type ("go", "py", "js").
- output_mode: "files_with_matches" (the default) lists matching files; "content" shows matching lines (with -n line numbers, -A/-B/-C context); "count" gives counts per file.
- Patterns match within a line; set multiline to match across lines.
- Files excluded by .gitignore, the .git directory and binary files are skipped.`
}

func (grepTool) Schema() json.RawMessage { return grepSpec.schema() }
func (grepTool) Kind() Kind              { return KindSearch }
func (grepTool) ReadOnly() bool          { return true }

func (grepTool) Describe(env *Env, input json.RawMessage) Description {
	var in GrepInput
	describeInput(input, &in)
	if in.Pattern == "" {
		return Description{Title: "Grep"}
	}
	d := Description{Title: fmt.Sprintf("Grep %q", shorten(in.Pattern, 80))}
	if in.Path != "" {
		d.Title += " in " + displayPath(env, in.Path)
		d.Locations = []Location{{Path: lexicalPath(env, in.Path)}}
	}
	if in.Glob != "" {
		d.Title += " (" + in.Glob + ")"
	} else if in.Type != "" {
		d.Title += " (type " + in.Type + ")"
	}
	return d
}

// fileHits is what one file contributed.
type fileHits struct {
	path    string
	lines   []string // the file's lines, kept for content mode
	matched []int    // 0-based indexes of matching lines, ascending
	count   int      // matching lines, or matches in multiline mode
}

func (t grepTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	var in GrepInput
	if err := grepSpec.decode(t.Name(), input, &in); err != nil {
		return Errorf("%v", err)
	}
	if in.Pattern == "" {
		return Errorf("Grep: pattern is required")
	}
	mode := in.OutputMode
	switch mode {
	case "":
		mode = "files_with_matches"
	case "content", "files_with_matches", "count":
	default:
		return Errorf("Grep: output_mode must be content, files_with_matches or count, not %q", in.OutputMode)
	}
	if in.Before < 0 || in.After < 0 || in.Context < 0 || in.HeadLimit < 0 {
		return Errorf("Grep: -A, -B, -C and head_limit must not be negative")
	}
	flags := ""
	if in.IgnoreCase {
		flags += "i"
	}
	if in.Multiline {
		flags += "ms"
	}
	expr := in.Pattern
	if flags != "" {
		expr = "(?" + flags + ")" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return Errorf("Grep: invalid regular expression %q: %v", in.Pattern, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	var suffixes []string
	if in.Type != "" {
		var ok bool
		if suffixes, ok = fileTypes[strings.ToLower(in.Type)]; !ok {
			return Errorf("Grep: unknown file type %q; known types: %s", in.Type, strings.Join(knownTypes(), ", "))
		}
	}
	var filter *globPattern
	filterOnPath := false
	if in.Glob != "" {
		g := filepath.ToSlash(in.Glob)
		filterOnPath = strings.Contains(strings.TrimPrefix(g, "**/"), "/")
		if strings.HasPrefix(g, "**/") && !filterOnPath {
			g = strings.TrimPrefix(g, "**/")
		}
		if filter, err = compileGlob(g); err != nil {
			return Errorf("Grep: invalid glob %q: %v", in.Glob, err)
		}
	}

	target := in.Path
	if target == "" {
		target = env.Cwd
	}
	root, err := env.Resolve(target)
	if err != nil {
		return Errorf("Grep: %v", err)
	}
	dirs := env.confined()
	defer dirs.Close()
	at, err := dirs.Locate(root)
	if err != nil {
		return Errorf("Grep: %v", err)
	}
	fi, err := at.Stat()
	if err != nil {
		return Errorf("Grep: %s does not exist", root)
	}

	var files []grepFile
	switch {
	case fi.IsDir():
		w := walker{
			ctx: ctx,
			visit: func(abs, rel string, d fs.DirEntry, at confine.Path) error {
				name := d.Name()
				if suffixes != nil && !typeMatches(suffixes, name) {
					return nil
				}
				if filter != nil {
					subject := name
					if filterOnPath {
						subject = rel
					}
					if !filter.match(subject) {
						return nil
					}
				}
				if d.Type()&fs.ModeSymlink != 0 {
					// Follow a symlink only to a regular file inside the
					// session's directories.
					target, err := dirs.Locate(abs)
					if err != nil {
						return nil
					}
					if st, err := target.Stat(); err != nil || !st.Mode().IsRegular() {
						return nil
					}
					at = target
				} else if !d.Type().IsRegular() {
					return nil
				}
				files = append(files, grepFile{path: abs, at: at})
				return nil
			},
		}
		if err := w.walk(at, root, ancestorIgnores(env, dirs, root, at)); err != nil {
			if ctx.Err() != nil {
				return Errorf("Grep was cancelled.")
			}
			return Errorf("Grep: %v", err)
		}
		slices.SortFunc(files, func(a, b grepFile) int { return strings.Compare(a.path, b.path) })
	case !fi.Mode().IsRegular():
		return Errorf("Grep: %v", confine.CheckRegular(root, fi))
	default:
		files = []grepFile{{path: root, at: at}}
	}

	var hits []fileHits
	for _, f := range files {
		if ctx.Err() != nil {
			return Errorf("Grep was cancelled.")
		}
		h, ok := searchFile(re, f, in.Multiline, mode == "content")
		if ok && h.count > 0 {
			hits = append(hits, h)
		}
	}
	if len(hits) == 0 {
		return Result{Text: "No matches found."}
	}

	limit := env.OutputLimit
	if limit <= 0 {
		limit = defaultOutputLimit
	}
	var out []string
	var footer string
	switch mode {
	case "files_with_matches":
		for _, h := range hits {
			out = append(out, h.path)
		}
		footer = "Found " + plural(len(hits), "file", "files")
	case "count":
		total := 0
		for _, h := range hits {
			out = append(out, h.path+":"+strconv.Itoa(h.count))
			total += h.count
		}
		what := plural(total, "matching line", "matching lines")
		if in.Multiline {
			what = plural(total, "match", "matches")
		}
		footer = fmt.Sprintf("Found %s in %s", what, plural(len(hits), "file", "files"))
	case "content":
		before, after := in.Context, in.Context
		if in.Before > 0 {
			before = in.Before
		}
		if in.After > 0 {
			after = in.After
		}
		numbers := in.LineNumber == nil || *in.LineNumber
		out = contentLines(hits, before, after, numbers)
	}

	var b strings.Builder
	if footer != "" && mode == "files_with_matches" {
		b.WriteString(footer + "\n")
		footer = ""
	}
	shown := len(out)
	if in.HeadLimit > 0 && in.HeadLimit < shown {
		shown = in.HeadLimit
	}
	cut := false
	for i, line := range out[:shown] {
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
	switch {
	case cut:
		fmt.Fprintf(&b, "\n\n(Output cut after %d of %d lines at %d bytes. Narrow the search with path, glob, type or head_limit.)", shown, len(out), limit)
	case shown < len(out):
		fmt.Fprintf(&b, "\n\n(Showing the first %d of %d lines.)", shown, len(out))
	}
	return Result{Text: b.String()}
}

func knownTypes() []string {
	names := make([]string, 0, len(fileTypes))
	for k := range fileTypes {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// grepFile is a file to search: path as the results show it, at where it
// is read.
type grepFile struct {
	path string
	at   confine.Path
}

// searchFile finds the matching lines of one file. It reports false for a
// file that cannot be read, is not a regular file, is too large or is
// binary.
func searchFile(re *regexp.Regexp, file grepFile, multiline, keepLines bool) (fileHits, bool) {
	data, err := file.at.ReadFile(grepMaxFileBytes)
	if err != nil {
		return fileHits{}, false
	}
	content := string(data)
	if isBinary(content) {
		return fileHits{}, false
	}
	h := fileHits{path: file.path}
	lines := strings.Split(content, "\n")
	if strings.HasSuffix(content, "\n") {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	if multiline {
		// starts[i] is the offset of line i in content; one more entry
		// closes the last line.
		starts := make([]int, 0, len(lines)+1)
		starts = append(starts, 0)
		for i := 0; i < len(content); i++ {
			if content[i] == '\n' {
				starts = append(starts, i+1)
			}
		}
		if len(starts) < len(lines)+1 {
			starts = append(starts, len(content)+1)
		}
		lineOf := func(pos int) int {
			return max(sort.Search(len(lines), func(i int) bool { return starts[i+1] > pos }), 0)
		}
		seen := map[int]bool{}
		for _, m := range re.FindAllStringIndex(content, -1) {
			h.count++
			first, last := lineOf(m[0]), lineOf(max(m[1]-1, m[0]))
			for l := first; l <= last && l < len(lines); l++ {
				if !seen[l] {
					seen[l] = true
					h.matched = append(h.matched, l)
				}
			}
		}
		slices.Sort(h.matched)
	} else {
		for i, l := range lines {
			if re.MatchString(l) {
				h.matched = append(h.matched, i)
			}
		}
		h.count = len(h.matched)
	}
	if keepLines {
		h.lines = lines
	}
	return h, true
}

// contentLines renders matches with context like ripgrep: "path:N:line"
// for a match, "path-N-line" for context, "--" between groups that are not
// adjacent.
func contentLines(hits []fileHits, before, after int, numbers bool) []string {
	var out []string
	withContext := before > 0 || after > 0
	for _, h := range hits {
		isMatch := make(map[int]bool, len(h.matched))
		for _, m := range h.matched {
			isMatch[m] = true
		}
		prev := -2
		for _, m := range h.matched {
			from, to := max(m-before, 0), min(m+after, len(h.lines)-1)
			if from <= prev {
				from = prev + 1
			}
			if withContext && len(out) > 0 && from > prev+1 {
				out = append(out, "--")
			}
			for l := from; l <= to; l++ {
				sep := "-"
				if isMatch[l] {
					sep = ":"
				}
				line := h.lines[l]
				if utf8.RuneCountInString(line) > grepMaxLineChars {
					line = string([]rune(line)[:grepMaxLineChars]) + "… [line truncated]"
				}
				if numbers {
					out = append(out, h.path+sep+strconv.Itoa(l+1)+sep+line)
				} else {
					out = append(out, h.path+sep+line)
				}
			}
			prev = max(prev, to)
		}
	}
	return out
}
