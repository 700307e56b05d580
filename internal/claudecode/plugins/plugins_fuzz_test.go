package plugins

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseInstalled reads arbitrary installed_plugins.json (version 1
// and 2), known_marketplaces.json and marketplace.json files: no panic;
// every install has a scope and a clean absolute path; a marketplace's plugin folder is inside the marketplace or "".
func FuzzParseInstalled(f *testing.F) {
	f.Add([]byte(`{"version": 2, "plugins": {"fmt@tools": [{"scope": "user", "installPath": "cache/tools/fmt/1.0.0", "version": "1.0.0"}, {"scope": "project", "projectPath": "/repo", "installPath": "~/p"}]}}`),
		[]byte(`{"tools": {"installLocation": "~/.claude/plugins/marketplaces/tools"}}`), []byte(`{"plugins": [{"name": "fmt", "source": "./plugins/fmt"}]}`))
	f.Add([]byte(`{"version": 1, "plugins": {"fmt@tools": {"installPath": "/abs/fmt", "version": "0.1"}}}`), []byte(`{}`), []byte(`{"plugins": [{"name": "fmt", "source": "../../etc"}]}`))
	f.Add([]byte(`{"plugins": {"a": [], "b": null, "c": {"installPath": ""}, "d": 3}}`), []byte(`[]`), []byte(`{"plugins": [{"name": "fmt", "source": {"source": "github", "repo": "o/r"}}]}`))
	f.Add([]byte(`{"version": 2, "plugins": {"fmt@tools": [{"installPath": "../../../../x"}]}}`), []byte(`{"m": {"installLocation": ""}}`), []byte(`{"plugins": [{"name": "fmt", "source": "/abs"}]}`))
	f.Fuzz(func(t *testing.T, installed, known, market []byte) {
		const dir, home, root = "/h/.claude/plugins", "/h", "/h/.claude/plugins/marketplaces/tools"
		ins, _ := ParseInstalled("installed_plugins.json", installed, dir, home)
		for _, in := range ins {
			if in.Scope == "" || !filepath.IsAbs(in.Path) || filepath.Clean(in.Path) != in.Path {
				t.Fatalf("install %+v: no scope, or a path not clean and absolute", in)
			}
		}
		ms, _ := ParseKnownMarketplaces("known_marketplaces.json", known, home)
		for _, m := range ms {
			if m.InstallLocation == "" {
				t.Fatalf("marketplace %q without a location", m.Name)
			}
		}
		if got := marketplaceSource(root, market, "fmt"); got != "" && !within(root, got) {
			t.Fatalf("marketplace source %q is outside %s", got, root)
		}
	})
}

// FuzzReadParts reads a plugin whose manifest and .mcp.json are
// arbitrary: no panic; a manifest error leaves the name it was
// installed under; every folder and hook or MCP file it names is inside
// the plugin; every MCP server has a name and a type.
func FuzzReadParts(f *testing.F) {
	f.Add([]byte(`{"name": "fmt", "version": "1.0.0", "commands": "./extra", "agents": ["./agents", "../../out"], "skills": "./skills", "hooks": "./hooks/more.json", "mcpServers": "./mcp.json"}`),
		[]byte(`{"mcpServers": {"db": {"command": "${CLAUDE_PLUGIN_ROOT}/db"}}}`))
	f.Add([]byte(`{"name": "a b", "hooks": {"PreToolUse": []}, "mcpServers": {"x": {"url": "https://h"}}}`), []byte(`{"x": {"command": "y"}}`))
	f.Add([]byte(`{"commands": "/etc", "skills": ["", "./../.."], "hooks": 3}`), []byte(`[`))
	f.Add([]byte(`{`), []byte(``))
	root := f.TempDir()
	for _, d := range []string{".claude-plugin", "commands", "agents", "skills", "extra", "hooks"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, manifest, mcp []byte) {
		if err := os.WriteFile(filepath.Join(root, ManifestPath), manifest, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, ".mcp.json"), mcp, 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := ReadParts(root, "installed")
		if err != nil {
			if p.Name != "installed" {
				t.Fatalf("a bad manifest named the plugin %q", p.Name)
			}
			return
		}
		if p.Name == "" || strings.ContainsAny(p.Name, ": /\\\t\n") {
			t.Fatalf("plugin name %q", p.Name)
		}
		var paths []string
		paths = append(paths, p.Commands...)
		paths = append(paths, p.Agents...)
		paths = append(paths, p.Skills...)
		for _, h := range p.Hooks {
			paths = append(paths, h.Path)
		}
		for _, d := range paths {
			if !within(root, d) {
				t.Fatalf("manifest %q: %s is outside the plugin", manifest, d)
			}
		}
		for _, s := range p.MCP {
			if strings.TrimSpace(s.Name) == "" || s.Type == "" {
				t.Fatalf("MCP server %+v", s)
			}
		}
	})
}
