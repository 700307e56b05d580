package config

import (
	"errors"
	"fmt"
	"slices"

	"gopkg.in/yaml.v3"
)

var (
	entryKeys = []string{"config", "disabled", "id", "name"}
	patchKeys = []string{"after", "before", "config", "disabled", "id", "insert", "name"}
)

// appendEntries parses the list n and appends its entries.
func (l *loader) appendEntries(entries []*Entry, n *yaml.Node, file string) ([]*Entry, error) {
	seq := resolveAlias(n)
	if seq.Kind != yaml.SequenceNode {
		return nil, &Error{File: file, Line: seq.Line, Msg: "plugins must be a list of entries; got " + describeNode(seq)}
	}
	for _, item := range seq.Content {
		e, err := parseEntry(item, file)
		if err != nil {
			return nil, err
		}
		if entries, err = insertUnique(entries, len(entries), e); err != nil {
			return nil, err
		}
	}
	return entries, nil
}

// insertUnique inserts e at index at, refusing an id already present.
func insertUnique(entries []*Entry, at int, e *Entry) ([]*Entry, error) {
	if i := indexOf(entries, e.ID); i >= 0 {
		return nil, &Error{File: e.file, Line: e.line, EntryID: e.ID, Msg: "duplicate id; first defined at " + entries[i].Source}
	}
	return slices.Insert(entries, at, e), nil
}

func indexOf(entries []*Entry, id string) int {
	return slices.IndexFunc(entries, func(e *Entry) bool { return e.ID == id })
}

// unknownID words a reference to an id that is not in entries.
func unknownID(what, id string, entries []*Entry) string {
	ids := make([]string, len(entries))
	for i, e := range entries {
		ids[i] = e.ID
	}
	slices.Sort(ids)
	return fmt.Sprintf("%s unknown id %q (%s)", what, id, choices(id, ids, "known"))
}

func parseEntry(n *yaml.Node, file string) (*Entry, error) {
	n = resolveAlias(n)
	if n.Kind != yaml.MappingNode {
		return nil, &Error{File: file, Line: n.Line, Msg: "an entry must be a mapping with id and name; got " + describeNode(n)}
	}
	fields, err := structuralFields(n, file, "entry key", entryKeys, idOf(n))
	if err != nil {
		return nil, err
	}
	e := &Entry{file: file, line: n.Line, Source: fmt.Sprintf("%s:%d", file, n.Line)}
	fail := func(line int, msg string) error {
		return &Error{File: file, Line: line, EntryID: e.ID, Msg: msg}
	}

	idField, ok := fields["id"]
	if !ok {
		return nil, fail(n.Line, `entry has no "id"`)
	}
	if e.ID, ok = textValue(idField.value); !ok {
		return nil, fail(idField.value.Line, "id must be a non-empty string; got "+describeNode(idField.value))
	}
	nameField, ok := fields["name"]
	if !ok {
		return nil, fail(n.Line, `has no "name"`)
	}
	if e.Name, ok = textValue(nameField.value); !ok {
		return nil, fail(nameField.value.Line, "name must be a plugin name; got "+describeNode(nameField.value))
	}
	e.nameFile, e.nameLine = file, nameField.value.Line
	if disabled, ok := fields["disabled"]; ok {
		if e.Disabled, ok = boolValue(disabled.value); !ok {
			return nil, fail(disabled.value.Line, "disabled must be true or false; got "+describeNode(disabled.value))
		}
	}
	if config, ok := fields["config"]; ok {
		node := resolveAlias(config.value)
		if node.Kind != yaml.MappingNode {
			return nil, fail(node.Line, "config must be a mapping; got "+describeNode(node))
		}
		e.Config = *node
		e.layers = []configLayer{{node: node, file: file}}
	}
	return e, nil
}

// idOf returns the id of an entry mapping if it has a usable one, so that
// errors found before the id is validated can still name the entry.
func idOf(m *yaml.Node) string {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "id" {
			id, _ := textValue(m.Content[i+1])
			return id
		}
	}
	return ""
}

func (l *loader) parsePatch(n *yaml.Node, file string) (*Patch, error) {
	n = resolveAlias(n)
	if n.Kind != yaml.MappingNode {
		return nil, &Error{File: file, Line: n.Line, Msg: "a patch must be a mapping, {id: ...} to change an entry or {insert: [...]} to add entries; got " + describeNode(n)}
	}
	fields, err := structuralFields(n, file, "patch key", patchKeys, "")
	if err != nil {
		return nil, err
	}
	p := &Patch{file: file, line: n.Line, Source: fmt.Sprintf("%s:%d", file, n.Line)}
	fail := func(line int, msg string) error { return &Error{File: file, Line: line, Msg: msg} }

	if insert, ok := fields["insert"]; ok {
		for _, key := range []string{"id", "name", "config", "disabled"} {
			if f, ok := fields[key]; ok {
				return nil, fail(f.key.Line, fmt.Sprintf("a patch either changes an entry (id) or inserts entries (insert), not both; %q belongs to changing", key))
			}
		}
		seq := resolveAlias(insert.value)
		if seq.Kind != yaml.SequenceNode {
			return nil, fail(seq.Line, "insert must be a list of entries; got "+describeNode(seq))
		}
		if len(seq.Content) == 0 {
			return nil, fail(seq.Line, "insert lists no entries")
		}
		for _, item := range seq.Content {
			e, err := parseEntry(item, file)
			if err != nil {
				return nil, err
			}
			p.Insert = append(p.Insert, *e)
		}
		for _, key := range []string{"before", "after"} {
			f, ok := fields[key]
			if !ok {
				continue
			}
			id, ok := textValue(f.value)
			if !ok {
				return nil, fail(f.value.Line, key+" must be an entry id; got "+describeNode(f.value))
			}
			if key == "before" {
				p.Before = id
			} else {
				p.After = id
			}
		}
		if p.Before != "" && p.After != "" {
			return nil, fail(n.Line, "a patch can insert before or after an entry, not both")
		}
		return p, nil
	}

	for _, key := range []string{"before", "after"} {
		if f, ok := fields[key]; ok {
			return nil, fail(f.key.Line, key+" positions inserted entries; it has no meaning in a patch that changes an entry")
		}
	}
	idField, ok := fields["id"]
	if !ok {
		return nil, fail(n.Line, "a patch needs id (to change that entry) or insert (to add entries)")
	}
	if p.ID, ok = textValue(idField.value); !ok {
		return nil, fail(idField.value.Line, "id must be a non-empty string; got "+describeNode(idField.value))
	}
	if name, ok := fields["name"]; ok {
		if p.Name, ok = textValue(name.value); !ok {
			return nil, fail(name.value.Line, "name must be a plugin name; got "+describeNode(name.value))
		}
		p.nameLine = name.value.Line
	}
	if disabled, ok := fields["disabled"]; ok {
		value, ok := boolValue(disabled.value)
		if !ok {
			return nil, fail(disabled.value.Line, "disabled must be true or false; got "+describeNode(disabled.value))
		}
		p.Disabled = &value
	}
	if config, ok := fields["config"]; ok {
		node := resolveAlias(config.value)
		if node.Kind != yaml.MappingNode {
			return nil, fail(node.Line, "config must be a mapping; got "+describeNode(node))
		}
		p.Config = *node
	}
	if p.Name == "" && p.Disabled == nil && p.Config.Kind == 0 {
		return nil, fail(n.Line, fmt.Sprintf("patch for %q changes nothing; set name, config or disabled", p.ID))
	}
	return p, nil
}

func applyPatch(entries []*Entry, p *Patch) ([]*Entry, error) {
	if len(p.Insert) > 0 {
		at := len(entries)
		for _, anchor := range []struct {
			id, what string
			offset   int
		}{{p.Before, "insert before", 0}, {p.After, "insert after", 1}} {
			if anchor.id == "" {
				continue
			}
			i := indexOf(entries, anchor.id)
			if i < 0 {
				return nil, &Error{File: p.file, Line: p.line, Msg: unknownID(anchor.what, anchor.id, entries)}
			}
			at = i + anchor.offset
		}
		for i := range p.Insert {
			var err error
			if entries, err = insertUnique(entries, at, &p.Insert[i]); err != nil {
				return nil, err
			}
			at++
		}
		return entries, nil
	}

	i := indexOf(entries, p.ID)
	if i < 0 {
		return nil, &Error{File: p.file, Line: p.line, Msg: unknownID("patch for", p.ID, entries)}
	}
	e := entries[i]
	if p.Name != "" && p.Name != e.Name {
		// A config belongs to its plugin: another plugin starts from its own
		// defaults rather than inheriting options it may not have.
		e.Name, e.nameFile, e.nameLine = p.Name, p.file, p.nameLine
		e.Config, e.layers = yaml.Node{}, nil
	}
	if p.Disabled != nil {
		e.Disabled = *p.Disabled
	}
	if p.Config.Kind != 0 {
		budget := maxMergeSteps
		merged, err := mergeConfig(&e.Config, &p.Config, &budget)
		if err != nil {
			return nil, &Error{File: p.file, Line: p.Config.Line, EntryID: e.ID, Msg: err.Error()}
		}
		e.Config = *merged
		e.layers = append(e.layers, configLayer{node: &p.Config, file: p.file})
	}
	return entries, nil
}

// maxMergeSteps bounds merging, which follows aliases and so could otherwise
// be made exponential by a hostile file.
const maxMergeSteps = 100_000

var errMergeTooLarge = errors.New("config is too large to merge (too many aliases?)")

// mergeConfig lays patch over base: where both are mappings, keys merge one
// by one, recursively; anywhere else (scalars, lists, a missing base) the
// patch value replaces the base value. Nodes are never modified, only rebuilt
// along merged paths, because aliases and earlier layers share them.
func mergeConfig(base, patch *yaml.Node, budget *int) (*yaml.Node, error) {
	if *budget--; *budget < 0 {
		return nil, errMergeTooLarge
	}
	b, p := resolveAlias(base), resolveAlias(patch)
	if b.Kind != yaml.MappingNode || p.Kind != yaml.MappingNode {
		return patch, nil
	}
	merged := *b
	merged.Anchor = ""
	merged.Content = slices.Clone(b.Content)
	for i := 0; i+1 < len(p.Content); i += 2 {
		key, value := p.Content[i], p.Content[i+1]
		j := mappingKeyIndex(&merged, key)
		if j < 0 {
			merged.Content = append(merged.Content, key, value)
			continue
		}
		sub, err := mergeConfig(merged.Content[j+1], value, budget)
		if err != nil {
			return nil, err
		}
		merged.Content[j+1] = sub
	}
	return &merged, nil
}

// mappingKeyIndex returns the index in m.Content of the scalar key equal to
// key, or -1.
func mappingKeyIndex(m *yaml.Node, key *yaml.Node) int {
	if key.Kind != yaml.ScalarNode {
		return -1
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i]; k.Kind == yaml.ScalarNode && k.Value == key.Value {
			return i
		}
	}
	return -1
}
