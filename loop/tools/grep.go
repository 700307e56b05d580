package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

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

func (t grepTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	var in GrepInput
	if err := grepSpec.decode(t.Name(), input, &in); err != nil {
		return Errorf("%v", err)
	}
	q, err := newGrepQuery(in)
	if err != nil {
		return Errorf("Grep: %v", err)
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
	switch {
	case err != nil:
		return Errorf("Grep: %s does not exist", root)
	case !fi.IsDir() && !fi.Mode().IsRegular():
		return Errorf("Grep: %v", confine.CheckRegular(root, fi))
	}

	// The walk feeds the searchers as it goes, a batch of one directory's
	// files at a time.
	q.search.display = func(abs string) string { return displayPath(env, abs) }
	files := make(chan []grepFile, grepQueuedBatches)
	found := make(chan []fileHits, 1)
	go func() { found <- q.search.searchAll(ctx, files) }()
	var walkErr error
	if fi.IsDir() {
		walkErr = q.walk(ctx, env, dirs, root, at, files)
	} else {
		files <- []grepFile{{abs: root, at: at}}
	}
	close(files)
	hits := <-found
	switch {
	case ctx.Err() != nil:
		return Errorf("Grep was cancelled.")
	case walkErr != nil:
		return Errorf("Grep: %v", walkErr)
	}
	return Result{Text: q.report(env, hits)}
}

func knownTypes() []string {
	names := make([]string, 0, len(fileTypes))
	for k := range fileTypes {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// grepFile is a file to search: its absolute path as the walk spells it,
// and where it is read: by name through the handle of its directory (in,
// which its batch holds once), or, for the file named as the path, at.
type grepFile struct {
	abs  string
	in   *confine.Dir
	name string
	at   confine.Path
}

const (
	// grepBatchFiles is the most files of one directory handed to a
	// searcher at once: few enough for a big directory to be shared out,
	// enough for the handoff not to cost per file.
	grepBatchFiles = 64
	// grepQueuedBatches bounds the batches waiting for a searcher (and so
	// the directory handles they hold open).
	grepQueuedBatches = 64
)
