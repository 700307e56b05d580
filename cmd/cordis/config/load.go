package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cordis-agent/cordis/internal/confine"
	"gopkg.in/yaml.v3"
)

// EmbeddedSource is the name to pass to Parse for the configuration compiled
// into the binary; messages then read "<embedded default>:3: ...".
const EmbeddedSource = "<embedded default>"

const (
	maxFileSize     = 1 << 20 // a config file is small; this stops a mistaken /dev/zero or log file
	maxIncludeDepth = 32      // catches include chains that symlinks hide from cycle detection
)

// Config is a loaded configuration.
type Config struct {
	// Plugins in their final order. Disabled entries are kept, flagged, so
	// that a listing can show them; Enabled filters them out.
	Plugins []Plugin
	// Warnings are problems that did not stop loading, each one line with its
	// file:line, such as a ${VAR} that expanded to "".
	Warnings []string
	// Files lists the files read: the loaded file first, then its includes
	// depth-first. Empty for Parse.
	Files []string
}

// Plugin is one resolved, decoded entry.
type Plugin struct {
	ID   string
	Name string
	// Config is the pointer returned by the plugin's registered newConfig,
	// with the entry's config decoded over it.
	Config   any
	Disabled bool
	// Source is the file:line where the entry was defined (or inserted).
	Source string
	// Keys are the dotted paths of the settings the entry's config sets
	// (permissionRules.deny), for callers that treat settings differently
	// by who wrote them. Empty for entries made in Go.
	Keys []string
}

// Enabled returns the plugins that are not disabled, in order.
func (c *Config) Enabled() []Plugin {
	var enabled []Plugin
	for _, p := range c.Plugins {
		if !p.Disabled {
			enabled = append(enabled, p)
		}
	}
	return enabled
}

// Entry is one plugin entry as written in a file, before its config is
// decoded against the plugin's type.
type Entry struct {
	ID   string
	Name string
	// Config is the raw config mapping after patches were merged over it; its
	// Kind is 0 when the entry has none.
	Config   yaml.Node
	Disabled bool
	Source   string // file:line of the entry, for messages

	file, nameFile string
	line, nameLine int
	// layers are the config mappings merged into Config, each with its own
	// file, so that a bad field is reported where it was written.
	layers []configLayer
}

type configLayer struct {
	node *yaml.Node
	file string
}

// Patch is one item of a composing file's patches: either an override of the
// entry with ID, or an insertion of new entries.
type Patch struct {
	ID       string
	Name     string    // "" leaves the name
	Config   yaml.Node // merged over the entry's config; Kind 0 leaves it
	Disabled *bool     // nil leaves the flag
	Insert   []Entry
	Before   string // with Insert: the id to insert before
	After    string // with Insert: the id to insert after; neither means append
	Source   string

	file           string
	line, nameLine int
}

// Load reads the configuration at path, following its includes, and decodes
// every entry with reg. getenv supplies ${VAR} values; nil means os.Getenv.
func Load(path string, reg *Registry, getenv func(string) string) (*Config, error) {
	l := newLoader(reg, getenv, func(path string) ([]byte, error) { return confine.ReadRegularFile(path, maxFileSize) })
	entries, err := l.loadFile(path, "", 0)
	if err != nil {
		return nil, err
	}
	return l.decode(entries)
}

// Parse decodes configuration bytes named source in messages; pass
// EmbeddedSource for the built-in default. It reads no files, so an include
// is an error: use Load for files that compose others.
func Parse(data []byte, source string, reg *Registry, getenv func(string) string) (*Config, error) {
	l := newLoader(reg, getenv, nil)
	entries, err := l.parseFile(data, source)
	if err != nil {
		return nil, err
	}
	return l.decode(entries)
}

// loader holds the state of one Load or Parse call.
type loader struct {
	reg      *Registry
	getenv   func(string) string
	readFile func(path string) ([]byte, error) // nil: includes are refused
	chain    []openFile                        // files being read, outermost first
	files    []string
	warnings []string
}

type openFile struct{ path, identity string }

func newLoader(reg *Registry, getenv func(string) string, readFile func(string) ([]byte, error)) *loader {
	if getenv == nil {
		getenv = os.Getenv
	}
	return &loader{reg: reg, getenv: getenv, readFile: readFile}
}

func (l *loader) warn(file string, line int, msg string) {
	where := file
	if line > 0 {
		where += ":" + strconv.Itoa(line)
	}
	l.warnings = append(l.warnings, singleLine(where+": "+msg))
}

// fileIdentity names a file independently of how a path spells it, for
// cycle detection.
func fileIdentity(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// loadFile reads and resolves one file; fromFile and fromLine locate the
// include that named it (empty for the top-level file).
func (l *loader) loadFile(path, fromFile string, fromLine int) ([]*Entry, error) {
	identity := fileIdentity(path)
	for i, open := range l.chain {
		if open.identity == identity {
			var names []string
			for _, f := range l.chain[i:] {
				names = append(names, f.path)
			}
			names = append(names, path)
			return nil, &Error{File: fromFile, Line: fromLine, Msg: "include cycle: " + strings.Join(names, " -> ")}
		}
	}
	if len(l.chain) >= maxIncludeDepth {
		return nil, &Error{File: fromFile, Line: fromLine, Msg: fmt.Sprintf("includes nest more than %d deep", maxIncludeDepth)}
	}
	data, err := l.readFile(path)
	if err != nil {
		if fromFile == "" {
			return nil, &Error{File: path, Msg: describeReadError(err), cause: err}
		}
		return nil, &Error{File: fromFile, Line: fromLine, Msg: fmt.Sprintf("include %q: %s", path, describeReadError(err)), cause: err}
	}
	l.files = append(l.files, path)
	l.chain = append(l.chain, openFile{path: path, identity: identity})
	defer func() { l.chain = l.chain[:len(l.chain)-1] }()
	return l.parseFile(data, path)
}

// parseFile resolves one file's content to its list of entries.
func (l *loader) parseFile(data []byte, file string) ([]*Entry, error) {
	shielded, sh := shieldReferences(data)
	root, err := parseYAML(shielded, file)
	if err != nil {
		return nil, err
	}
	if root == nil {
		l.warn(file, 0, "file holds no plugin entries")
		return nil, nil
	}
	if err := l.expandTree(root, file, sh); err != nil {
		return nil, err
	}
	switch root.Kind {
	case yaml.SequenceNode:
		return l.appendEntries(nil, root, file)
	case yaml.MappingNode:
		return l.compose(root, file)
	}
	return nil, &Error{File: file, Line: root.Line, Msg: "want a list of plugin entries, or a mapping of include, plugins and patches; got " + describeNode(root)}
}

// parseYAML returns the root node of the single document in data, or nil for
// an empty document.
func parseYAML(data []byte, file string) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, yamlError(err, file, 0)
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, yamlError(err, file, 0)
	default:
		return nil, &Error{File: file, Line: next.Line, Msg: "a config file holds one YAML document; found a second"}
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	root := resolveAlias(doc.Content[0])
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return nil, nil
	}
	return root, nil
}

func resolveAlias(n *yaml.Node) *yaml.Node {
	// yaml.v3 never makes an alias of an alias, but a bounded loop costs nothing.
	for range 8 {
		if n.Kind != yaml.AliasNode || n.Alias == nil {
			break
		}
		n = n.Alias
	}
	return n
}

// describeNode names a node's kind for "got ..." messages.
func describeNode(n *yaml.Node) string {
	n = resolveAlias(n)
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "nothing"
		case "!!str":
			return fmt.Sprintf("the string %q", truncate(n.Value))
		}
		return fmt.Sprintf("%s %s", strings.TrimPrefix(n.ShortTag(), "!!"), truncate(n.Value))
	}
	return "an unexpected node"
}

// truncate shortens a value quoted in a message, which should stay readable
// even when the value is a whole file.
func truncate(s string) string {
	const limit = 60
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

var composeKeys = []string{"include", "patches", "plugins"}

// compose resolves a composing file: included entries first, then the
// file's own plugins, then its patches in order.
func (l *loader) compose(m *yaml.Node, file string) ([]*Entry, error) {
	if key := entryKeyIn(m); key != nil {
		return nil, &Error{File: file, Line: key.Line, Msg: fmt.Sprintf(`found key %q at the top level: a list of plugin entries starts each entry with "- "`, key.Value)}
	}
	fields, err := structuralFields(m, file, "top-level key", composeKeys, "")
	if err != nil {
		return nil, err
	}
	var entries []*Entry
	if include, ok := fields["include"]; ok {
		paths, err := includePaths(include.value, file)
		if err != nil {
			return nil, err
		}
		for _, p := range paths {
			if l.readFile == nil {
				return nil, &Error{File: file, Line: p.Line, Msg: "include is only possible in a file read with Load"}
			}
			target := p.Value
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(file), target)
			}
			included, err := l.loadFile(target, file, p.Line)
			if err != nil {
				return nil, err
			}
			for _, e := range included {
				if entries, err = insertUnique(entries, len(entries), e); err != nil {
					return nil, err
				}
			}
		}
	}
	if plugins, ok := fields["plugins"]; ok {
		if entries, err = l.appendEntries(entries, plugins.value, file); err != nil {
			return nil, err
		}
	}
	if patches, ok := fields["patches"]; ok {
		seq := resolveAlias(patches.value)
		if seq.Kind != yaml.SequenceNode {
			return nil, &Error{File: file, Line: seq.Line, Msg: "patches must be a list; got " + describeNode(seq)}
		}
		for _, item := range seq.Content {
			patch, err := l.parsePatch(item, file)
			if err != nil {
				return nil, err
			}
			if entries, err = applyPatch(entries, patch); err != nil {
				return nil, err
			}
		}
	}
	return entries, nil
}

// entryKeyIn returns the id or name key of mapping m, if any: a top-level
// mapping with one is an entry whose list "- " was forgotten.
func entryKeyIn(m *yaml.Node) *yaml.Node {
	for i := 0; i < len(m.Content); i += 2 {
		if key := m.Content[i]; key.Value == "id" || key.Value == "name" {
			return key
		}
	}
	return nil
}

// includePaths returns the scalar nodes naming included files: include takes
// one path or a list of them.
func includePaths(n *yaml.Node, file string) ([]*yaml.Node, error) {
	n = resolveAlias(n)
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
		if len(items) == 0 {
			return nil, &Error{File: file, Line: n.Line, Msg: "include lists no files"}
		}
	}
	for i, item := range items {
		item = resolveAlias(item)
		if _, ok := textValue(item); !ok {
			return nil, &Error{File: file, Line: item.Line, Msg: "include wants a path or a list of paths; got " + describeNode(item)}
		}
		items[i] = item
	}
	return items, nil
}

type keyValue struct{ key, value *yaml.Node }

// structuralFields indexes a mapping of cordis's own syntax (entry, patch,
// composing file). Unknown and repeated keys are errors: in these mappings a
// stray key is always a typo or a misplaced setting.
func structuralFields(m *yaml.Node, file, what string, valid []string, entryID string) (map[string]keyValue, error) {
	fields := make(map[string]keyValue, len(m.Content)/2)
	for i := 0; i+1 < len(m.Content); i += 2 {
		key, value := m.Content[i], m.Content[i+1]
		if first, dup := fields[key.Value]; dup {
			return nil, &Error{File: file, Line: key.Line, EntryID: entryID, Msg: fmt.Sprintf("key %q repeated (first at line %d)", key.Value, first.key.Line)}
		}
		if key.Kind != yaml.ScalarNode || !slices.Contains(valid, key.Value) {
			return nil, &Error{File: file, Line: key.Line, EntryID: entryID, Msg: fmt.Sprintf("unknown %s %q (%s)", what, key.Value, choices(key.Value, valid, "valid"))}
		}
		fields[key.Value] = keyValue{key: key, value: value}
	}
	return fields, nil
}

// textValue returns a scalar's text; null and empty scalars have none.
func textValue(n *yaml.Node) (string, bool) {
	n = resolveAlias(n)
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" || n.Value == "" {
		return "", false
	}
	return n.Value, true
}

func boolValue(n *yaml.Node) (value, ok bool) {
	n = resolveAlias(n)
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
		return false, false
	}
	if err := n.Decode(&value); err != nil {
		return false, false
	}
	return value, true
}
