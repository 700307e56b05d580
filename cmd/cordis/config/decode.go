package config

import (
	"fmt"
	"reflect"
	"slices"

	"gopkg.in/yaml.v3"
)

// decode turns resolved entries into plugins, checking each config against
// its plugin's registered type.
func (l *loader) decode(entries []*Entry) (*Config, error) {
	cfg := &Config{Warnings: l.warnings, Files: l.files}
	for _, e := range entries {
		p, err := l.decodeEntry(e)
		if err != nil {
			return nil, err
		}
		cfg.Plugins = append(cfg.Plugins, p)
	}
	return cfg, nil
}

// decodeEntry decodes e's config. Disabled entries are checked too, so that
// enabling one later cannot reveal an old mistake.
//
// yaml.v3 offers KnownFields only on a Decoder reading text, not on
// Node.Decode, and re-encoding would lose the lines of the original files.
// So unknown fields are found by walking each config layer against the type,
// with each layer's own file and lines; then each layer is decoded alone to
// report type errors in the right file; then the merged config is decoded.
func (l *loader) decodeEntry(e *Entry) (Plugin, error) {
	reg, ok := l.reg.lookup(e.Name)
	if !ok {
		return Plugin{}, &Error{File: e.nameFile, Line: e.nameLine, EntryID: e.ID,
			Msg: fmt.Sprintf("unknown plugin %q (%s)", e.Name, choices(e.Name, l.reg.Names(), "valid"))}
	}
	fail := func(file string, line int, msg string) error {
		return &Error{File: file, Line: line, EntryID: e.ID, Plugin: e.Name, Msg: msg}
	}
	for _, layer := range e.layers {
		checker := fieldChecker{seen: make(map[checkKey]bool)}
		if problem := checker.check(layer.node, reg.configType, ""); problem != nil {
			return Plugin{}, fail(layer.file, problem.line, problem.msg)
		}
		if err := layer.node.Decode(reg.newConfig()); err != nil {
			ye := yamlError(err, layer.file, layer.node.Line)
			return Plugin{}, fail(ye.File, ye.Line, ye.Msg)
		}
	}
	value := reg.newConfig()
	if e.Config.Kind != 0 {
		if err := e.Config.Decode(value); err != nil {
			ye := yamlError(err, e.file, e.line)
			return Plugin{}, fail(ye.File, ye.Line, ye.Msg)
		}
	}
	return Plugin{ID: e.ID, Name: e.Name, Config: value, Disabled: e.Disabled, Source: e.Source, Keys: leafKeys(&e.Config, "")}, nil
}

// leafKeys lists the dotted paths of the settings a config mapping sets:
// nested mappings are followed, anything else (a list, a scalar) is a leaf.
// A YAML merge key ("<<") is followed as if its keys were written in place.
func leafKeys(n *yaml.Node, prefix string) []string {
	n = resolveAlias(n)
	if n.Kind != yaml.MappingNode {
		if prefix == "" {
			return nil
		}
		return []string{prefix}
	}
	var keys []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, value := n.Content[i], n.Content[i+1]
		if isMergeKey(key) {
			if merged := resolveAlias(value); merged.Kind == yaml.SequenceNode {
				for _, m := range merged.Content {
					keys = append(keys, leafKeys(m, prefix)...)
				}
			} else {
				keys = append(keys, leafKeys(merged, prefix)...)
			}
			continue
		}
		keys = append(keys, leafKeys(value, joinPath(prefix, key.Value))...)
	}
	return keys
}

type fieldProblem struct {
	line int
	msg  string
}

// fieldChecker finds the first mapping key that the target type has no field
// for. Type mismatches are left to yaml.v3, which reports them well.
type fieldChecker struct {
	// seen skips a node already checked against a type; without it, aliases
	// could make the walk exponential.
	seen map[checkKey]bool
}

type checkKey struct {
	node *yaml.Node
	typ  reflect.Type
}

func (c *fieldChecker) check(n *yaml.Node, t reflect.Type, path string) *fieldProblem {
	n, t = resolveAlias(n), derefType(t)
	if decodesItself(t) || c.seen[checkKey{n, t}] {
		return nil
	}
	c.seen[checkKey{n, t}] = true
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return nil
		}
		fields, err := yamlFields(t, false)
		if err != nil {
			return nil // Register refuses such types; the decoder will complain
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, value := n.Content[i], n.Content[i+1]
			if isMergeKey(key) {
				if p := c.checkMerged(value, t, path); p != nil {
					return p
				}
				continue
			}
			j := slices.IndexFunc(fields, func(f yamlField) bool { return f.name == key.Value })
			if j < 0 {
				names := make([]string, len(fields))
				for i, f := range fields {
					names[i] = f.name
				}
				slices.Sort(names)
				return &fieldProblem{line: key.Line, msg: fmt.Sprintf("unknown field %q (%s)", joinPath(path, key.Value), choices(key.Value, names, "valid"))}
			}
			if p := checkEnum(value, fields[j], joinPath(path, key.Value)); p != nil {
				return p
			}
			if p := c.check(value, fields[j].typ, joinPath(path, key.Value)); p != nil {
				return p
			}
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return nil
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, value := n.Content[i], n.Content[i+1]
			var p *fieldProblem
			if isMergeKey(key) {
				p = c.checkMerged(value, t, path)
			} else {
				p = c.check(value, t.Elem(), joinPath(path, key.Value))
			}
			if p != nil {
				return p
			}
		}
	case reflect.Slice, reflect.Array:
		if n.Kind != yaml.SequenceNode {
			return nil
		}
		for i, item := range n.Content {
			if p := c.check(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); p != nil {
				return p
			}
		}
	}
	return nil
}

// checkEnum refuses a value the field's schema does not list, with the
// nearest allowed one: `defaultMode: acceptedits` would otherwise be
// taken as written and, say, advertised as a mode the editor's picker
// does not have. An empty value is the field's default. Types that decode
// themselves check their own values.
func checkEnum(n *yaml.Node, f yamlField, path string) *fieldProblem {
	n = resolveAlias(n)
	if len(f.enum) == 0 || n.Kind != yaml.ScalarNode || n.Value == "" || decodesItself(derefType(f.typ)) || slices.Contains(f.enum, n.Value) {
		return nil
	}
	return &fieldProblem{line: n.Line, msg: fmt.Sprintf("field %q: %q is not allowed (%s)", path, n.Value, choices(n.Value, f.enum, "valid"))}
}

// checkMerged checks the value of a "<<" merge key: one mapping or a list of
// them, whose keys land in the enclosing mapping.
func (c *fieldChecker) checkMerged(value *yaml.Node, t reflect.Type, path string) *fieldProblem {
	value = resolveAlias(value)
	if value.Kind != yaml.SequenceNode {
		return c.check(value, t, path)
	}
	for _, item := range value.Content {
		if p := c.check(item, t, path); p != nil {
			return p
		}
	}
	return nil
}

// isMergeKey mirrors yaml.v3's test for a "<<" merge key.
func isMergeKey(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Value == "<<" && (n.Tag == "" || n.Tag == "!" || n.ShortTag() == "!!merge")
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
