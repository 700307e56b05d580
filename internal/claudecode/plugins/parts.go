package plugins

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cordis-agent/cordis/internal/claudecode/mcpjson"
	"github.com/cordis-agent/cordis/internal/confine"
)

// ManifestPath is where a plugin keeps its manifest, relative to its root.
const ManifestPath = ".claude-plugin/plugin.json"

// maxFile caps a manifest, hooks or .mcp.json file of a plugin.
const maxFile = 4 << 20

// Parts are what one plugin contributes.
type Parts struct {
	// Name is the manifest's name, else the name it was installed under.
	Name, Version, Description string
	// Commands, Skills and Agents are folders (absolute) that exist.
	Commands, Skills, Agents []string
	// Hooks are its hook files.
	Hooks []HookFile
	// MCP are its MCP servers, as written (names unprefixed).
	MCP []mcpjson.Server
	// Problems are parts skipped (a path outside the plugin, a hooks or
	// .mcp.json file that does not parse); the rest still loads.
	Problems []string
}

// HookFile is a file holding a plugin's hooks: a hooks.json
// ({"hooks": {...}}), or with Inline the plugin's manifest, whose "hooks"
// object holds them.
type HookFile struct {
	Path   string
	Inline bool
}

// ReadParts reads the plugin at root: its manifest when it has one, and
// the parts it contributes, by Claude Code's layout (commands/, skills/,
// agents/, hooks/hooks.json, .mcp.json) and the paths and inline objects
// the manifest names (commands and agents replace the default folder;
// skills, hooks and mcpServers add to it). name is the name it was
// installed under. The error is a manifest that cannot be used, which
// makes the plugin unusable.
func ReadParts(root, name string) (Parts, error) {
	p := Parts{Name: name}
	mpath := filepath.Join(root, filepath.FromSlash(ManifestPath))
	var m struct {
		Name        string          `json:"name"`
		Version     string          `json:"version"`
		Description string          `json:"description"`
		Commands    json.RawMessage `json:"commands"`
		Agents      json.RawMessage `json:"agents"`
		Skills      json.RawMessage `json:"skills"`
		Hooks       json.RawMessage `json:"hooks"`
		MCPServers  json.RawMessage `json:"mcpServers"`
	}
	data, err := confine.ReadRegularFile(mpath, maxFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return p, fmt.Errorf("%s: cannot read: %v", mpath, err)
	default:
		if err := json.Unmarshal(data, &m); err != nil {
			return p, fmt.Errorf("%s: not a valid plugin manifest: %v", mpath, jsonPosition(data, err))
		}
		if n := strings.TrimSpace(m.Name); n != "" {
			if strings.ContainsAny(n, ": /\\\t\n") {
				return p, fmt.Errorf("%s: plugin name %q may not contain ':', '/' or blanks", mpath, n)
			}
			p.Name = n
		}
		p.Version, p.Description = m.Version, m.Description
	}
	field := func(key string, raw json.RawMessage) []string {
		paths, err := pathList(raw)
		if err != nil {
			p.Problems = append(p.Problems, fmt.Sprintf("%s: %q: %v; skipped", mpath, key, err))
			return nil
		}
		var out []string
		for _, rel := range paths {
			abs, err := inside(root, rel)
			if err != nil {
				p.Problems = append(p.Problems, fmt.Sprintf("%s: %q: %v; skipped", mpath, key, err))
				continue
			}
			out = append(out, abs)
		}
		return out
	}
	dirs := func(key string, raw json.RawMessage, def string, replace bool) []string {
		named := field(key, raw)
		var out []string
		if len(named) == 0 || !replace {
			out = append(out, filepath.Join(root, def))
		}
		for _, d := range named {
			if fi, err := os.Stat(d); err == nil && !fi.IsDir() {
				p.Problems = append(p.Problems, fmt.Sprintf("%s: %q names the file %s; cordis reads %s folders only, so it was skipped", mpath, key, d, key))
				continue
			}
			out = append(out, d)
		}
		return existingDirs(out)
	}
	p.Commands = dirs("commands", m.Commands, "commands", true)
	p.Agents = dirs("agents", m.Agents, "agents", true)
	p.Skills = dirs("skills", m.Skills, "skills", false)

	if f := filepath.Join(root, "hooks", "hooks.json"); isFile(f) {
		p.Hooks = append(p.Hooks, HookFile{Path: f})
	}
	if isObject(m.Hooks) {
		p.Hooks = append(p.Hooks, HookFile{Path: mpath, Inline: true})
	} else {
		for _, f := range field("hooks", m.Hooks) {
			if len(p.Hooks) == 0 || p.Hooks[0].Path != f {
				p.Hooks = append(p.Hooks, HookFile{Path: f})
			}
		}
	}

	var mcpFiles []string
	if f := filepath.Join(root, ".mcp.json"); isFile(f) {
		mcpFiles = append(mcpFiles, f)
	}
	if isObject(m.MCPServers) {
		p.addMCP(mpath, m.MCPServers)
	} else {
		for _, f := range field("mcpServers", m.MCPServers) {
			if len(mcpFiles) == 0 || mcpFiles[0] != f {
				mcpFiles = append(mcpFiles, f)
			}
		}
	}
	for _, f := range mcpFiles {
		data, err := confine.ReadRegularFile(f, maxFile)
		if err != nil {
			p.Problems = append(p.Problems, fmt.Sprintf("%s: cannot read: %v; its MCP servers are skipped", f, err))
			continue
		}
		p.addMCP(f, data)
	}
	return p, nil
}

// addMCP adds the servers of a plugin's .mcp.json, which Claude Code
// accepts both as {"mcpServers": {...}} and as the servers object itself.
func (p *Parts) addMCP(where string, data []byte) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		p.Problems = append(p.Problems, fmt.Sprintf("%s: not valid JSON: %v; its MCP servers are skipped", where, jsonPosition(data, err)))
		return
	}
	raw := json.RawMessage(data)
	if inner, ok := top["mcpServers"]; ok {
		raw = inner
	}
	f, err := mcpjson.ParseServers(where, raw)
	if err != nil {
		p.Problems = append(p.Problems, err.Error())
		return
	}
	p.Problems = append(p.Problems, f.Problems...)
	p.MCP = append(p.MCP, f.Servers...)
}

// pathList reads a manifest path field: a string or a list of strings.
func pathList(raw json.RawMessage) ([]string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, fmt.Errorf("want a path or a list of paths")
	}
	return many, nil
}

// inside resolves a manifest path against the plugin root; it must stay
// inside it (Claude Code's paths start with "./").
func inside(root, rel string) (string, error) {
	if rel == "" || filepath.IsAbs(rel) {
		return "", fmt.Errorf("path %q must be relative to the plugin (\"./...\")", rel)
	}
	abs := filepath.Join(root, filepath.FromSlash(rel))
	if !within(root, abs) {
		return "", fmt.Errorf("path %q leads out of the plugin", rel)
	}
	return abs, nil
}

func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func existingDirs(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			out = append(out, d)
		}
	}
	return out
}
