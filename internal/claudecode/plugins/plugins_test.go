package plugins

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/internal/setup"
	"github.com/cordis-agent/cordis/internal/trust"
)

// TestParseInstalled: both of Claude Code's shapes, "~/" paths, and a
// file that is not JSON named with its line.
func TestParseInstalled(t *testing.T) {
	v2 := `{"version": 2, "plugins": {
	  "b@m": [{"scope": "project", "projectPath": "/p", "installPath": "/c/m/b/1.0.0", "version": "1.0.0"},
	          {"scope": "user", "installPath": "~/.claude/plugins/cache/m/b/2.0.0", "version": "2.0.0"}],
	  "a@m": [{"scope": "user", "installPath": "/c/m/a/0.1.0"}]}}`
	got, err := ParseInstalled("ip.json", []byte(v2), "/h/.claude/plugins", "/h")
	if err != nil {
		t.Fatal(err)
	}
	want := []Install{
		{ID: "a@m", Scope: "user", Path: "/c/m/a/0.1.0"},
		{ID: "b@m", Scope: "project", ProjectPath: "/p", Path: "/c/m/b/1.0.0", Version: "1.0.0"},
		{ID: "b@m", Scope: "user", Path: "/h/.claude/plugins/cache/m/b/2.0.0", Version: "2.0.0"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("record %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if got[0].Name() != "a" || got[0].Market() != "m" {
		t.Errorf("name/market = %q/%q", got[0].Name(), got[0].Market())
	}

	v1 := `{"version": 1, "plugins": {"a@m": {"version": "1", "installPath": "/c/a", "installedAt": "x"}}}`
	got, err = ParseInstalled("ip.json", []byte(v1), "/d", "/h")
	if err != nil || len(got) != 1 || got[0].Path != "/c/a" || got[0].Scope != "user" {
		t.Fatalf("v1: %+v, %v", got, err)
	}

	_, err = ParseInstalled("ip.json", []byte("{\n  \"plugins\": {,}\n}"), "/d", "/h")
	if err == nil || !strings.Contains(err.Error(), "ip.json: not valid JSON: line 2") {
		t.Fatalf("malformed: %v", err)
	}
	got, err = ParseInstalled("ip.json", []byte(`{"version":2,"plugins":{"x@m":[{"scope":"user"}],"y@m":[{"installPath":"/y"}]}}`), "/d", "/h")
	if err == nil || !strings.Contains(err.Error(), `"x@m": a record without installPath`) || len(got) != 1 || got[0].ID != "y@m" {
		t.Fatalf("a bad record is skipped alone: %+v, %v", got, err)
	}
}

// world is a user folder, a project and a trust store for Find.
type world struct {
	t                  *testing.T
	home, user, cwd    string
	store              *trust.Store
	installed          map[string][]map[string]string
	userSet, projSet   map[string]any
	localSet           map[string]any
	finder             *Finder
	written            bool
	writeInstalledJSON bool
}

func newWorld(t *testing.T) *world {
	home := t.TempDir()
	w := &world{t: t, home: home, user: filepath.Join(home, ".claude"), cwd: t.TempDir(), store: trust.Open(t.TempDir()), installed: map[string][]map[string]string{}}
	w.finder = &Finder{UserDir: w.user, Home: home, Trust: w.store, Settings: []setup.Source{
		setup.User(filepath.Join(w.user, "settings.json")), setup.Project(".claude/settings.json"), setup.Project(".claude/settings.local.json")}}
	return w
}

// install copies a plugin into the cache as `claude plugin install`
// leaves it and records it.
func (w *world) install(id, version string, files map[string]string, record map[string]string) string {
	name, market, _ := strings.Cut(id, "@")
	root := filepath.Join(w.user, "plugins", "cache", market, name, version)
	writeFiles(w.t, root, files)
	rec := map[string]string{"scope": "user", "installPath": root, "version": version}
	for k, v := range record {
		rec[k] = v
	}
	w.installed[id] = append(w.installed[id], rec)
	writeJSON(w.t, filepath.Join(w.user, "plugins", InstalledFile), map[string]any{"version": 2, "plugins": w.installed})
	return root
}

func (w *world) settings(user, project, local map[string]any) {
	for path, v := range map[string]map[string]any{
		filepath.Join(w.user, "settings.json"):                 user,
		filepath.Join(w.cwd, ".claude", "settings.json"):       project,
		filepath.Join(w.cwd, ".claude", "settings.local.json"): local,
	} {
		os.Remove(path)
		if v != nil {
			writeJSON(w.t, path, map[string]any{"enabledPlugins": v})
		}
	}
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, _ := json.MarshalIndent(v, "", "  ")
	writeFiles(t, filepath.Dir(path), map[string]string{filepath.Base(path): string(data)})
}

func ids(ps []Plugin) string {
	var out []string
	for _, p := range ps {
		out = append(out, p.ID)
	}
	return strings.Join(out, ",")
}

func skipped(set *Set, id string) string {
	for _, s := range set.Skipped {
		if s.ID == id {
			return s.Why
		}
	}
	return ""
}

// TestEnablementPrecedence: the highest settings file that names a
// plugin decides (local over project over user); without an entry an
// installed plugin is enabled; a plugin only the project enables waits
// for trust, unless the user installed it for that project.
func TestEnablementPrecedence(t *testing.T) {
	w := newWorld(t)
	w.install("p@m", "1.0.0", map[string]string{"commands/hi.md": "hi"}, nil)
	on, off := map[string]any{"p@m": true}, map[string]any{"p@m": false}

	w.settings(nil, nil, nil)
	if set := w.finder.Find(w.cwd); ids(set.Plugins) != "p@m" || set.Plugins[0].EnabledBy != "" {
		t.Fatalf("installed, no entry: %+v", set)
	}
	w.settings(on, off, nil)
	if set := w.finder.Find(w.cwd); ids(set.Plugins) != "" || !strings.HasPrefix(skipped(set, "p@m"), "disabled by "+filepath.Join(w.cwd, ".claude", "settings.json")) {
		t.Fatalf("project false over user true: %+v", set)
	}
	w.settings(on, off, on)
	if set := w.finder.Find(w.cwd); ids(set.Plugins) != "p@m" || set.Plugins[0].Project {
		t.Fatalf("local true over project false, user-enabled: %+v", set)
	}
	w.settings(off, nil, nil)
	if set := w.finder.Find(w.cwd); ids(set.Plugins) != "" {
		t.Fatalf("user false: %+v", set)
	}

	// Only the project enables it: skipped until that is trusted.
	w.settings(off, on, nil)
	set := w.finder.Find(w.cwd)
	if ids(set.Plugins) != "" || !strings.Contains(skipped(set, "p@m"), "cordis trust --cwd "+w.cwd) || !set.Skipped[0].Untrusted {
		t.Fatalf("project-only enablement loaded without trust: %+v", set)
	}
	found := w.finder.Discover(w.cwd)
	if len(found) != 1 || len(found[0].Hooks) != 1 || found[0].Hooks[0].Command != "p@m" {
		t.Fatalf("Discover = %+v", found)
	}
	if err := w.store.Trust(found[0]); err != nil {
		t.Fatal(err)
	}
	if set := w.finder.Find(w.cwd); ids(set.Plugins) != "p@m" || !set.Plugins[0].Project {
		t.Fatalf("trusted project enablement: %+v", set)
	}

	// Installed by the user for this project (claude plugin install
	// --scope project): the user's own choice, no trust needed.
	w2 := newWorld(t)
	w2.install("q@m", "1", map[string]string{"commands/x.md": "x"}, map[string]string{"scope": "project", "projectPath": w2.cwd})
	w2.settings(nil, map[string]any{"q@m": true}, nil)
	if set := w2.finder.Find(w2.cwd); ids(set.Plugins) != "q@m" || set.Plugins[0].Project {
		t.Fatalf("project install: %+v", set)
	}
	// The same record does not enable it in another project.
	if set := w2.finder.Find(t.TempDir()); ids(set.Plugins) != "" {
		t.Fatalf("project install leaks to another project: %+v", set)
	}
}

// TestBrokenPlugins: a manifest that is not JSON, a missing folder, a
// plugin enabled but never installed and an unreadable
// installed_plugins.json are reasons, never failures; the other plugins
// load.
func TestBrokenPlugins(t *testing.T) {
	w := newWorld(t)
	w.install("good@m", "1", map[string]string{"commands/a.md": "a"}, nil)
	w.install("broken@m", "1", map[string]string{ManifestPath: "{\n  \"name\": \"broken\",\n  oops\n}"}, nil)
	gone := w.install("gone@m", "1", map[string]string{"commands/a.md": "a"}, nil)
	os.RemoveAll(gone)
	w.settings(map[string]any{"good@m": true, "broken@m": true, "gone@m": true, "never@m": true}, nil, nil)
	set := w.finder.Find(w.cwd)
	if ids(set.Plugins) != "good@m" {
		t.Fatalf("plugins = %s", ids(set.Plugins))
	}
	for id, want := range map[string]string{
		"broken@m": "plugin.json: not a valid plugin manifest: line 3, column 3",
		"gone@m":   "is missing (reinstall it with `claude plugin install gone@m`)",
		"never@m":  "not installed (install it with `claude plugin install never@m`)",
	} {
		if why := skipped(set, id); !strings.Contains(why, want) {
			t.Errorf("%s: %q, want %q", id, why, want)
		}
	}
	writeFiles(t, filepath.Join(w.user, "plugins"), map[string]string{InstalledFile: "not json"})
	set = w.finder.Find(w.cwd)
	if len(set.Problems) != 1 || !strings.Contains(set.Problems[0], InstalledFile+": not valid JSON") {
		t.Fatalf("problems = %q", set.Problems)
	}
}

// TestParts: Claude Code's default layout, manifest paths that replace
// (commands, agents) or add to (skills) it, inline hooks and servers,
// both .mcp.json shapes, and paths that lead out of the plugin.
func TestParts(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"commands/a.md":          "a",
		"cmds/b.md":              "b",
		"skills/s/SKILL.md":      "s",
		"more-skills/t/SKILL.md": "t",
		"agents/r.md":            "r",
		"hooks/hooks.json":       `{"hooks": {}}`,
		".mcp.json":              `{"flat": {"command": "x"}}`,
		"extra.mcp.json":         `{"mcpServers": {"wrapped": {"type": "sse", "url": "http://h/sse"}}}`,
		ManifestPath: `{"name": "tools", "version": "2.0.0",
			"commands": ["./cmds"], "skills": "./more-skills", "agents": "../../etc",
			"hooks": {"PreToolUse": []}, "mcpServers": ["./extra.mcp.json"]}`,
	})
	p, err := ReadParts(root, "installed-name")
	if err != nil {
		t.Fatal(err)
	}
	rel := func(dirs []string) string {
		var out []string
		for _, d := range dirs {
			r, _ := filepath.Rel(root, d)
			out = append(out, r)
		}
		return strings.Join(out, ",")
	}
	if p.Name != "tools" || p.Version != "2.0.0" || rel(p.Commands) != "cmds" || rel(p.Skills) != "skills,more-skills" || rel(p.Agents) != "agents" {
		t.Fatalf("parts = %+v", p)
	}
	if len(p.Hooks) != 2 || p.Hooks[0].Inline || !p.Hooks[1].Inline {
		t.Fatalf("hooks = %+v", p.Hooks)
	}
	if len(p.MCP) != 2 || p.MCP[0].Name != "flat" || p.MCP[1].Name != "wrapped" || p.MCP[1].Type != "sse" {
		t.Fatalf("mcp = %+v", p.MCP)
	}
	if len(p.Problems) != 1 || !strings.Contains(p.Problems[0], `"agents": path "../../etc" leads out of the plugin`) {
		t.Fatalf("problems = %q", p.Problems)
	}
	// Without a manifest the folder name it was installed under is its name.
	if p, err := ReadParts(t.TempDir(), "bare"); err != nil || p.Name != "bare" {
		t.Fatalf("bare = %+v, %v", p, err)
	}
}

// TestMarketplaceCopy: a record whose cache folder is gone runs from its
// marketplace's copy, as Claude Code does with a directory marketplace.
func TestMarketplaceCopy(t *testing.T) {
	w := newWorld(t)
	gone := w.install("p@local", "1", map[string]string{"x": ""}, nil)
	os.RemoveAll(gone)
	market := filepath.Join(w.user, "plugins", "marketplaces", "local")
	writeFiles(t, market, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "local", "owner": {"name": "me"}, "plugins": [{"name": "p", "source": "./plugins/p"}]}`,
		"plugins/p/commands/c.md":         "c",
	})
	writeJSON(t, filepath.Join(w.user, "plugins", MarketplacesFile), map[string]any{"local": map[string]any{"source": map[string]string{"source": "directory", "path": "/src"}, "installLocation": market}})
	set := w.finder.Find(w.cwd)
	if ids(set.Plugins) != "p@local" || set.Plugins[0].Root != filepath.Join(market, "plugins", "p") {
		t.Fatalf("set = %+v", set)
	}
	if set.Plugins[0].DataDir != filepath.Join(w.user, "plugins", "data", "p-local") {
		t.Errorf("data dir = %s", set.Plugins[0].DataDir)
	}
}
