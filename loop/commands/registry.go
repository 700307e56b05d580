package commands

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/cordis-agent/cordis/hooks/permrules"
	"github.com/cordis-agent/cordis/internal/confine"
	"github.com/cordis-agent/cordis/internal/setup"
	"gopkg.in/yaml.v3"
)

// Protected names cannot be taken by user, project or MCP commands.
var Protected = []string{"help", "clear", "compact", "status", "hooks", "doctor", "model", "mode", "budget", "export"}

// maxCommandFile caps a command file; larger files are load errors.
const maxCommandFile = 256 << 10

// Sources are where the registry finds files, each list highest
// precedence first. cmd/cordis fills them with cordis's own command
// folders and Claude Code's (internal/claudecode); the registry only
// knows whose each is, the project's or the user's.
type Sources struct {
	// Commands are folders of Markdown command files.
	Commands []setup.Source
	// Skills are skill roots (<root>/<name>/SKILL.md).
	Skills []setup.Source
	// Agents are folders of custom subagent files.
	Agents []setup.Source
	// SavedPrompts are folders of saved prompts (<folder>/<name>.md,
	// Codex's custom prompts), offered as /prompts:<name>
	// (savedprompts.go).
	SavedPrompts []setup.Source
	// Bundles, when set, lists the plugins in effect for a cwd: their
	// commands, skills and subagents are namespaced with the plugin's
	// name and never clash with the others (nil: none).
	Bundles func(cwd string) []setup.Bundle
}

// Registry merges command sources (Sources.Commands, the first over the
// later ones) over built-ins. Loading the files is cached per cwd and
// invalidated when a command directory or file changes (or by
// Invalidate); Enabled is evaluated on every lookup.
type Registry struct {
	builtins []Command
	sources  Sources
	extra    func(cwd string) []Command // e.g. MCP prompts; may be nil

	mu    sync.Mutex
	cache map[string]*Set
}

// NewRegistry returns a registry over builtins that reads the files of
// sources (the zero Sources reads none).
func NewRegistry(builtins []Command, sources Sources) *Registry {
	return &Registry{builtins: builtins, sources: sources, cache: map[string]*Set{}}
}

// LoadError is a command source that could not be loaded.
type LoadError struct {
	Path string
	Err  string
}

func (e LoadError) String() string { return e.Path + ": " + e.Err }

// Set is the merged commands for one cwd.
type Set struct {
	commands []Command          // sorted by name
	byName   map[string]Command // names and aliases
	Warnings []string
	Errors   []LoadError
	// Skills and Agents are the Claude Code skills and custom subagents
	// found for this cwd, sorted by name.
	Skills    []Skill
	Agents    []AgentDef
	signature string
}

// Load returns the merged commands for cwd, from the cache when no
// command file changed since it was built.
func (r *Registry) Load(cwd string) *Set {
	dirs := r.dirs(cwd)
	bundles := r.bundles(cwd)
	sig := signature(slices.Concat(dirs, r.skillDirs(cwd), r.agentDirs(cwd), bundleDirs(bundles), resolve(r.sources.SavedPrompts, cwd)))
	r.mu.Lock()
	defer r.mu.Unlock()
	if s := r.cache[cwd]; s != nil && s.signature == sig {
		return s
	}
	s := r.build(cwd, dirs, bundles)
	s.signature = sig
	r.cache[cwd] = s
	return s
}

// Invalidate drops the cached set for cwd (/reload).
func (r *Registry) Invalidate(cwd string) {
	r.mu.Lock()
	delete(r.cache, cwd)
	r.mu.Unlock()
}

type sourceDir struct {
	path   string
	source Source
	// within is the folder a project directory is read confined to when
	// it is not the cwd (a folder above it, up to the repository's root).
	within string
}

// confinedTo is the folder reading a project directory is confined to.
func (d sourceDir) confinedTo(cwd string) string { return cmp.Or(d.within, cwd) }

// resolve places sources for cwd, keeping their order; a source also
// looked for above the cwd (setup.Source.UpToRepo) is followed by its
// copies there, nearest first, each read confined to the repository.
func resolve(sources []setup.Source, cwd string) []sourceDir {
	out := make([]sourceDir, 0, len(sources))
	for _, src := range sources {
		d := sourceDir{path: src.In(cwd), source: SourceUser}
		if src.Project {
			d.source = SourceProject
		}
		out = append(out, d)
		above, root := src.Above(cwd)
		for _, p := range above {
			out = append(out, sourceDir{path: p, source: SourceProject, within: root})
		}
	}
	return out
}

// dirs lists the command directories in precedence order, highest first.
func (r *Registry) dirs(cwd string) []sourceDir { return resolve(r.sources.Commands, cwd) }

// signature fingerprints the command files (names, sizes, mtimes), so an
// edit, addition or removal invalidates the cache.
func signature(dirs []sourceDir) string {
	var b strings.Builder
	for _, d := range dirs {
		filepath.WalkDir(d.path, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if info, ierr := e.Info(); ierr == nil {
				fmt.Fprintf(&b, "%s|%d|%d\n", p, info.Size(), info.ModTime().UnixNano())
			}
			return nil
		})
	}
	return b.String()
}

func (r *Registry) build(cwd string, dirs []sourceDir, bundles []setup.Bundle) *Set {
	s := &Set{byName: map[string]Command{}}
	// Lowest precedence first; later sources override earlier ones, except
	// for protected names.
	var layers [][]Command
	layers = append(layers, r.builtins)
	// Plugins' commands are namespaced, so only a file of the user's or
	// the project's named the same way can take one's name.
	bundled := loadBundles(bundles)
	layers = append(layers, bundled.commands)
	s.Errors = append(s.Errors, bundled.errors...)
	// Saved prompts are namespaced too (/prompts:<name>).
	saved, errs := loadSavedPrompts(resolve(r.sources.SavedPrompts, cwd), cwd)
	layers = append(layers, saved)
	s.Errors = append(s.Errors, errs...)
	for i := len(dirs) - 1; i >= 0; i-- {
		cmds, errs := loadDir(dirs[i], cwd)
		layers = append(layers, cmds)
		s.Errors = append(s.Errors, errs...)
	}
	s.Skills, errs = loadSkills(r.skillDirs(cwd), cwd)
	s.Errors = append(s.Errors, errs...)
	s.Agents, errs = loadAgents(r.agentDirs(cwd), cwd)
	s.Errors = append(s.Errors, errs...)
	s.Skills = mergeByName(s.Skills, bundled.skills, func(sk Skill) string { return sk.Name })
	s.Agents = mergeByName(s.Agents, bundled.agents, func(a AgentDef) string { return a.Name })
	// A skill takes the name of a command file (Claude Code: the skill wins).
	var skillCmds []Command
	for _, sk := range s.Skills {
		if sk.UserInvocable {
			skillCmds = append(skillCmds, skillCommand(sk))
		}
	}
	layers = append(layers, skillCmds)
	if r.extra != nil {
		layers = append([][]Command{r.extra(cwd)}, layers...)
	}
	named := map[string]Command{}
	for _, layer := range layers {
		for _, c := range layer {
			sp := c.spec()
			if old, taken := named[sp.Name]; taken {
				if old.spec().Source == SourceBuiltin && slices.Contains(Protected, sp.Name) {
					s.Warnings = append(s.Warnings, fmt.Sprintf("%s: /%s is a protected built-in command and cannot be overridden", sourceLabel(sp), sp.Name))
					continue
				}
			}
			named[sp.Name] = c
		}
	}
	names := make([]string, 0, len(named))
	for n := range named {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c := named[n]
		s.commands = append(s.commands, c)
		s.byName[n] = c
	}
	// Aliases: first owner (in name order) keeps an alias; names beat aliases.
	for _, n := range names {
		c := named[n]
		for _, a := range c.spec().Aliases {
			if owner, taken := s.byName[a]; taken {
				if owner != c {
					s.Warnings = append(s.Warnings, fmt.Sprintf("alias /%s of /%s is already taken by /%s; ignored", a, n, owner.spec().Name))
				}
				continue
			}
			s.byName[a] = c
		}
	}
	return s
}

func sourceLabel(sp *Spec) string {
	if sp.Path != "" {
		return sp.Path
	}
	return string(sp.Source)
}

// Lookup finds an enabled command by name or alias.
func (s *Set) Lookup(name string) (Command, bool) {
	c, ok := s.byName[name]
	if !ok {
		return nil, false
	}
	if en := c.spec().Enabled; en != nil && !en() {
		return nil, false
	}
	return c, true
}

// Commands returns the enabled commands, sorted by name.
func (s *Set) Commands() []Command {
	out := make([]Command, 0, len(s.commands))
	for _, c := range s.commands {
		if en := c.spec().Enabled; en == nil || en() {
			out = append(out, c)
		}
	}
	return out
}

// Suggest returns up to three enabled command names close to name.
func (s *Set) Suggest(name string) []string {
	type scored struct {
		name string
		d    int
	}
	var cands []scored
	for _, c := range s.Commands() {
		n := c.spec().Name
		d := editDistance(name, n)
		if d <= max(2, len(name)/3) || strings.HasPrefix(n, name) {
			cands = append(cands, scored{n, d})
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].d != cands[j].d {
			return cands[i].d < cands[j].d
		}
		return cands[i].name < cands[j].name
	})
	var out []string
	for i := 0; i < len(cands) && i < 3; i++ {
		out = append(out, cands[i].name)
	}
	return out
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// frontmatter is the YAML header of a command file (Claude Code's keys).
type frontmatter struct {
	Description string `yaml:"description"`
	// ArgumentHint is often written `[message]`, which YAML reads as a
	// list; both forms are accepted.
	ArgumentHint yaml.Node `yaml:"argument-hint"`
	AllowedTools any       `yaml:"allowed-tools"`
	Model        string    `yaml:"model"`
	// Context "fork" runs the command in a subagent (of type Agent).
	Context string `yaml:"context"`
	Agent   string `yaml:"agent"`
	// Arguments names the arguments: a list, or names separated by
	// spaces.
	Arguments any `yaml:"arguments"`
	Aliases   []string
}

// loadDir loads every *.md below d.path; subdirectories namespace the
// name with ':' (git/commit.md is /git:commit). A bad file is a LoadError;
// the others still load.
func loadDir(d sourceDir, cwd string) ([]Command, []LoadError) {
	var cmds []Command
	errs := walkMarkdown(d.path, d.source == SourceProject, d.confinedTo(cwd), func(p, rel string, read func() ([]byte, error)) error {
		name := strings.ReplaceAll(strings.TrimSuffix(rel, ".md"), string(filepath.Separator), ":")
		c, err := loadFile(p, name, d.source, read)
		if err == nil {
			cmds = append(cmds, c)
		}
		return err
	})
	return cmds, errs
}

// walkMarkdown calls visit for every *.md file below root (rel is its path
// relative to root); an error visit returns is a LoadError for that file.
// The user's own directories are trusted; the project's are read through
// walkProject.
func walkMarkdown(root string, project bool, cwd string, visit func(p, rel string, read func() ([]byte, error)) error) []LoadError {
	if project {
		return walkProject(root, cwd, visit)
	}
	var errs []LoadError
	filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if !os.IsNotExist(err) {
				errs = append(errs, LoadError{p, err.Error()})
			}
			return nil
		}
		if e.IsDir() || !strings.HasSuffix(p, ".md") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if err := visit(p, rel, func() ([]byte, error) { return confine.ReadRegularFile(p, maxCommandFile) }); err != nil {
			errs = append(errs, LoadError{p, err.Error()})
		}
		return nil
	})
	return errs
}

// walkProject is walkMarkdown for a directory of the project, which is
// untrusted: every directory and file is opened through cwd
// (internal/confine), so neither a link out of the project (a command
// file linked to ~/.ssh/id_ed25519, a command folder linked to another tree) nor
// a directory swapped for one while it is read is followed, and FIFOs are
// refused rather than waited on. A link out is a LoadError that says where
// it leads (shown by /doctor); links inside the project are followed.
func walkProject(root, cwd string, visit func(p, rel string, read func() ([]byte, error)) error) []LoadError {
	dirs := confine.New(cwd)
	defer dirs.Close()
	var errs []LoadError
	refuse := func(p string, err error) {
		var outside *confine.OutsideError
		if errors.As(err, &outside) {
			errs = append(errs, LoadError{p, fmt.Sprintf("it leads to %s, outside the project (%s), so it was not read", outside.Real, cwd)})
			return
		}
		errs = append(errs, LoadError{p, err.Error()})
	}
	var walk func(at confine.Path, abs, rel string)
	walk = func(at confine.Path, abs, rel string) {
		entries, err := at.ReadDir()
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				refuse(abs, err)
			}
			return
		}
		for _, e := range entries {
			p := filepath.Join(abs, e.Name())
			if e.IsDir() {
				walk(at.Join(e.Name()), p, filepath.Join(rel, e.Name()))
				continue
			}
			if !strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			file := at.Join(e.Name())
			if e.Type()&fs.ModeSymlink != 0 {
				// Followed only to a file inside the project.
				if file, err = dirs.Locate(p); err != nil {
					refuse(p, err)
					continue
				}
			}
			if err := visit(p, filepath.Join(rel, e.Name()), func() ([]byte, error) { return file.ReadFile(maxCommandFile) }); err != nil {
				refuse(p, err)
			}
		}
	}
	at, err := dirs.Locate(root)
	if err != nil {
		refuse(root, err)
		return errs
	}
	walk(at, root, "")
	return errs
}

// loadFile makes the prompt command name from the file at path. read
// returns the file's content; it is called only when the name is valid.
func loadFile(path, name string, source Source, read func() ([]byte, error)) (*Prompt, error) {
	if !validName(name) {
		return nil, fmt.Errorf("command name %q may only use letters, digits, ':', '_' and '-'", name)
	}
	data, err := read()
	if err != nil {
		return nil, err
	}
	var fm frontmatter
	body, err := splitFrontmatter(data, &fm)
	if err != nil {
		return nil, err
	}
	tools, err := toolList(fm.AllowedTools)
	if err != nil {
		return nil, err
	}
	desc := fm.Description
	if desc == "" {
		desc = firstLine(body)
	}
	return &Prompt{
		Spec:         Spec{Name: name, Aliases: fm.Aliases, Description: desc, ArgumentHint: hintText(&fm.ArgumentHint), Source: source, Path: path},
		Template:     body,
		AllowedTools: tools,
		Model:        fm.Model,
		Fork:         fm.Context == "fork",
		Agent:        fm.Agent,
		Arguments:    argumentNames(fm.Arguments),
	}, nil
}

// argumentNames reads the `arguments` frontmatter: a list of names or a
// string of names separated by blanks or commas.
func argumentNames(v any) []string {
	var out []string
	add := func(s string) {
		out = append(out, strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })...)
	}
	switch t := v.(type) {
	case string:
		add(t)
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok {
				add(s)
			}
		}
	}
	return out
}

// splitFrontmatter decodes the YAML header of a Markdown file (between
// "---" lines) into fm and returns the body after it; a file without one
// is all body.
func splitFrontmatter(data []byte, fm any) (string, error) {
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	rest, ok := bytes.CutPrefix(data, []byte("---\n"))
	if !ok {
		return string(data), nil
	}
	head, tail, found := bytes.Cut(rest, []byte("\n---"))
	if !found {
		if head, found = bytes.CutSuffix(rest, []byte("---")); !found {
			return "", fmt.Errorf("frontmatter starts with --- but never ends")
		}
	}
	if err := yaml.Unmarshal(head, fm); err != nil {
		// Claude Code reads a header that strict YAML refuses (an
		// unquoted description with ": " in it), so cordis does too.
		fixed, lerr := lenientFrontmatter(head)
		if lerr != nil || hasNoFields(head) || yaml.Unmarshal(fixed, fm) != nil {
			return "", fmt.Errorf("frontmatter: %v", err)
		}
	}
	return strings.TrimPrefix(string(tail), "\n"), nil
}

func hintText(n *yaml.Node) string {
	switch n.Kind {
	case yaml.ScalarNode:
		return n.Value
	case yaml.SequenceNode:
		parts := make([]string, len(n.Content))
		for i, c := range n.Content {
			parts[i] = c.Value
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return ""
}

// toolList accepts `allowed-tools` as a string of rules separated by
// commas or spaces (outside parentheses), or a list.
func toolList(v any) ([]string, error) {
	switch t := v.(type) {
	case nil:
		return nil, nil
	case string:
		return permrules.SplitRules(t), nil
	case []any:
		var out []string
		for _, x := range t {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("allowed-tools: %v is not a string", x)
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("allowed-tools must be a string or a list")
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(strings.TrimLeft(l, "# ")); l != "" {
			if len(l) > 80 {
				l = l[:80] + "…"
			}
			return l
		}
	}
	return ""
}
