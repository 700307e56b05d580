package plugins

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// Install is one record of installed_plugins.json: where a plugin was
// installed, and for which scope.
type Install struct {
	// ID is "<plugin>@<marketplace>", the key enabledPlugins uses.
	ID string
	// Scope is "user", "project" or "local"; ProjectPath is the project
	// a project or local install is for.
	Scope, ProjectPath string
	// Path is the plugin's installed folder (installPath).
	Path    string
	Version string
	// Seed is set for a record of a CLAUDE_CODE_PLUGIN_SEED_DIR folder.
	Seed bool
}

// Name is the plugin part of the ID; Market the marketplace part.
func (i Install) Name() string   { n, _, _ := strings.Cut(i.ID, "@"); return n }
func (i Install) Market() string { _, m, _ := strings.Cut(i.ID, "@"); return m }

// ParseInstalled reads installed_plugins.json in either of Claude Code's
// shapes: version 2, {"version": 2, "plugins": {"<id>": [records]}}, and
// version 1, where each id holds one record. Records are returned by id,
// in file order within an id. A relative installPath is taken from the
// file's folder (dir), a "~/" one from home.
func ParseInstalled(where string, data []byte, dir, home string) ([]Install, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var top struct {
		Version int                        `json:"version"`
		Plugins map[string]json.RawMessage `json:"plugins"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("%s: not valid JSON: %v", where, jsonPosition(data, err))
	}
	type record struct {
		Scope       string `json:"scope"`
		InstallPath string `json:"installPath"`
		Version     string `json:"version"`
		ProjectPath string `json:"projectPath"`
	}
	ids := make([]string, 0, len(top.Plugins))
	for id := range top.Plugins {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var out []Install
	var bad []string
	for _, id := range ids {
		raw := bytes.TrimSpace(top.Plugins[id])
		var recs []record
		var err error
		if len(raw) > 0 && raw[0] == '[' {
			err = json.Unmarshal(raw, &recs)
		} else {
			var one record
			err = json.Unmarshal(raw, &one)
			recs = []record{one}
		}
		if err != nil {
			bad = append(bad, fmt.Sprintf("%q: %v", id, err))
			continue
		}
		for _, r := range recs {
			if r.InstallPath == "" {
				bad = append(bad, fmt.Sprintf("%q: a record without installPath", id))
				continue
			}
			p := expandHome(r.InstallPath, home)
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			out = append(out, Install{ID: id, Scope: cmpOr(r.Scope, "user"), ProjectPath: r.ProjectPath, Path: filepath.Clean(p), Version: r.Version})
		}
	}
	if len(bad) > 0 {
		return out, fmt.Errorf("%s: skipped %s", where, strings.Join(bad, "; "))
	}
	return out, nil
}

// Marketplace is one entry of known_marketplaces.json: where its copy is.
type Marketplace struct {
	Name, InstallLocation string
}

// ParseKnownMarketplaces reads known_marketplaces.json.
func ParseKnownMarketplaces(where string, data []byte, home string) ([]Marketplace, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var m map[string]struct {
		InstallLocation string `json:"installLocation"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: not valid JSON: %v", where, jsonPosition(data, err))
	}
	var out []Marketplace
	for name, e := range m {
		if e.InstallLocation == "" {
			continue
		}
		out = append(out, Marketplace{Name: name, InstallLocation: expandHome(e.InstallLocation, home)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// marketplaceSource returns the folder of plugin name in a marketplace's
// copy (its .claude-plugin/marketplace.json names a relative source), or
// "" when the marketplace does not hold it locally.
func marketplaceSource(root string, data []byte, name string) string {
	var m struct {
		Plugins []struct {
			Name   string          `json:"name"`
			Source json.RawMessage `json:"source"`
		} `json:"plugins"`
	}
	if json.Unmarshal(data, &m) != nil {
		return ""
	}
	for _, p := range m.Plugins {
		var rel string
		if p.Name != name || json.Unmarshal(p.Source, &rel) != nil || rel == "" {
			continue
		}
		dir := filepath.Join(root, filepath.FromSlash(rel))
		if !within(root, dir) {
			return ""
		}
		return dir
	}
	return ""
}

// expandHome resolves a leading "~/" against home, as Claude Code writes
// some paths.
func expandHome(p, home string) string {
	rest, ok := strings.CutPrefix(p, "~/")
	if !ok || home == "" {
		return p
	}
	return filepath.Join(home, rest)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// within reports whether p is dir or below it, lexically.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// jsonPosition words a JSON error with its line and column.
func jsonPosition(data []byte, err error) error {
	var off int64 = -1
	switch e := err.(type) {
	case *json.SyntaxError:
		off = e.Offset - 1 // the offset is just past the bad byte
	case *json.UnmarshalTypeError:
		off = e.Offset
	}
	if off < 0 {
		return err
	}
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - bytes.LastIndexByte(before, '\n')
	return fmt.Errorf("line %d, column %d: %v", line, col, err)
}
