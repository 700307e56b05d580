package plugins

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/cordis-agent/cordis/internal/confine"
	"github.com/cordis-agent/cordis/internal/setup"
	"github.com/cordis-agent/cordis/internal/trust"
)

// Files Claude Code keeps in a plugins folder.
const (
	InstalledFile    = "installed_plugins.json"
	MarketplacesFile = "known_marketplaces.json"
	// SeedDirEnv names read-only folders laid out like ~/.claude/plugins
	// (separated as PATH is).
	SeedDirEnv = "CLAUDE_CODE_PLUGIN_SEED_DIR"
)

// The trust store's names for a plugin that a project's settings enable.
const (
	TrustDialect = "claude-plugins"
	trustEvent   = "enabledPlugins"
)

// maxSettings caps a settings file read for enabledPlugins.
const maxSettings = 4 << 20

// Finder finds the plugins in effect for a project. Set its fields before
// the first use and do not change them after; see the package doc.
type Finder struct {
	// UserDir is Claude Code's user folder ($CLAUDE_CONFIG_DIR, else
	// ~/.claude; "": no plugins of the user's); Home resolves "~/" in
	// recorded paths.
	UserDir, Home string
	// SeedDirs are the folders of CLAUDE_CODE_PLUGIN_SEED_DIR.
	SeedDirs []string
	// Settings are the settings files whose enabledPlugins count, lowest
	// precedence first: the user's, the project's, the project's local
	// (claudecode.Layout.Settings).
	Settings []setup.Source
	// Managed, when set, lists the administrator's policy files in merge
	// order (managed-settings.json, then managed-settings.d/*.json): their
	// enabledPlugins rank above every settings file, so a policy's false
	// blocks a plugin everywhere and its true enables one.
	Managed func() []string
	// Trust holds the enablements by a project's settings that the user
	// vouched for (nil: none).
	Trust *trust.Store
	// SyntaxErrorsTold leaves a settings file that is not valid JSON out
	// of Problems: set when another reader of the same files (the Claude
	// hook bridge) tells the user about it, so that it is told once.
	SyntaxErrorsTold bool

	mu    sync.Mutex
	cache map[string]*resolved // by project
}

// Plugin is a plugin in effect.
type Plugin struct {
	// ID is "<plugin>@<marketplace>".
	ID string
	Parts
	// Root is the plugin's folder (${CLAUDE_PLUGIN_ROOT}); DataDir its
	// data folder (${CLAUDE_PLUGIN_DATA}), which survives updates.
	Root, DataDir string
	// EnabledBy is the settings file that enabled it ("": it is enabled
	// as installed, without an entry).
	EnabledBy string
	// Project is set when only the project's settings enable it: it is
	// loaded only once the user trusted that (TrustEntry).
	Project bool
}

// Vars are the variables Claude Code substitutes in a plugin's hook
// commands, skill and agent text and MCP server definitions, and sets in
// its hooks' and servers' environment (CLAUDE_PROJECT_DIR aside, which
// depends on the session).
func (p Plugin) Vars() []string {
	return []string{"CLAUDE_PLUGIN_ROOT=" + p.Root, "CLAUDE_PLUGIN_DATA=" + p.DataDir}
}

// TrustEntry is the trust store's entry for the enablement of p by the
// project settings file p.EnabledBy.
func (p Plugin) TrustEntry() trust.Hook { return trustEntry(p.EnabledBy, p.ID) }

func trustEntry(settings, id string) trust.Hook {
	return trust.Hook{Dialect: TrustDialect, Source: settings + "#" + trustEvent, Event: trustEvent, Type: "plugin", Command: id}
}

// Skipped is a plugin that is installed or enabled but not in effect.
type Skipped struct {
	ID  string
	Why string
	// Untrusted is set when only trust is missing.
	Untrusted bool
}

// Set is what Find found for a project.
type Set struct {
	// Plugins are in effect, sorted by ID.
	Plugins []Plugin
	// Skipped are sorted by ID; Problems are files that could not be
	// read (installed_plugins.json, a settings file).
	Skipped  []Skipped
	Problems []string
}

// resolved is the cached reading for one project, before trust.
type resolved struct {
	stamp    string
	plugins  []Plugin
	skipped  []Skipped
	problems []string
}

// Find returns the plugins in effect for the project at cwd.
func (f *Finder) Find(cwd string) *Set {
	r := f.resolve(cwd)
	s := &Set{Skipped: slices.Clone(r.skipped), Problems: r.problems}
	for _, p := range r.plugins {
		if p.Project {
			if skip, skipped := f.Trust.Skipped(p.TrustEntry()); skipped {
				why := fmt.Sprintf("only the project's settings (%s) enable it, and that is %s: its hooks and MCP servers run commands, so it is not loaded until you review it and run `cordis trust --cwd %s`", p.EnabledBy, skip.Status, cwd)
				if skip.Err != nil {
					why += " (" + skip.Err.Error() + ")"
				}
				s.Skipped = append(s.Skipped, Skipped{ID: p.ID, Why: why, Untrusted: true})
				continue
			}
		}
		s.Plugins = append(s.Plugins, p)
	}
	sort.Slice(s.Skipped, func(i, j int) bool { return s.Skipped[i].ID < s.Skipped[j].ID })
	return s
}

// Discover lists the plugins that only cwd's project settings enable, by
// settings file, as entries `cordis trust` trusts and lists.
func (f *Finder) Discover(cwd string) []trust.Discovered {
	byFile := map[string]*trust.Discovered{}
	var order []string
	for _, p := range f.resolve(cwd).plugins {
		if !p.Project {
			continue
		}
		src := p.TrustEntry().Source
		d := byFile[src]
		if d == nil {
			d = &trust.Discovered{Dialect: TrustDialect, Path: src}
			byFile[src] = d
			order = append(order, src)
		}
		d.Hooks = append(d.Hooks, p.TrustEntry())
	}
	out := make([]trust.Discovered, 0, len(order))
	for _, src := range order {
		out = append(out, *byFile[src])
	}
	return out
}

// pluginDirs are the plugins folders, the user's first, then the seeds.
func (f *Finder) pluginDirs() []string {
	var dirs []string
	if f.UserDir != "" {
		dirs = append(dirs, filepath.Join(f.UserDir, "plugins"))
	}
	return append(dirs, f.SeedDirs...)
}

// inputs are the files a resolution depends on, besides the plugins'
// own.
func (f *Finder) inputs(cwd string) []string {
	var files []string
	for _, d := range f.pluginDirs() {
		files = append(files, filepath.Join(d, InstalledFile), filepath.Join(d, MarketplacesFile))
	}
	for _, s := range f.Settings {
		files = append(files, s.In(cwd))
	}
	return append(files, f.managedFiles()...)
}

func (f *Finder) managedFiles() []string {
	if f.Managed == nil {
		return nil
	}
	return f.Managed()
}

func (f *Finder) resolve(cwd string) *resolved {
	files := f.inputs(cwd)
	f.mu.Lock()
	cached := f.cache[cwd]
	f.mu.Unlock()
	if cached != nil && cached.stamp == stampOf(files, cached.plugins) {
		return cached
	}
	r := f.read(cwd)
	r.stamp = stampOf(files, r.plugins)
	f.mu.Lock()
	if f.cache == nil {
		f.cache = map[string]*resolved{}
	}
	f.cache[cwd] = r
	f.mu.Unlock()
	return r
}

// stampOf fingerprints the input files and the plugins' manifests, hooks
// and .mcp.json files (size and modification time; missing ones too).
func stampOf(files []string, plugins []Plugin) string {
	var b strings.Builder
	add := func(p string) {
		if fi, err := os.Stat(p); err == nil {
			fmt.Fprintf(&b, "%s|%d|%d\n", p, fi.Size(), fi.ModTime().UnixNano())
		} else {
			fmt.Fprintf(&b, "%s|-\n", p)
		}
	}
	for _, p := range files {
		add(p)
	}
	for _, p := range plugins {
		add(filepath.Join(p.Root, filepath.FromSlash(ManifestPath)))
		add(filepath.Join(p.Root, "hooks", "hooks.json"))
		add(filepath.Join(p.Root, ".mcp.json"))
	}
	return b.String()
}

// layer is one settings file's enabledPlugins.
type layer struct {
	path    string
	project bool
	// managed: an administrator's policy file.
	managed bool
	enabled map[string]bool
}

// read reads every input for cwd and decides which plugin is in effect.
func (f *Finder) read(cwd string) *resolved {
	r := &resolved{}
	var installs []Install
	markets := map[string]string{}
	for i, dir := range f.pluginDirs() {
		seed := f.UserDir == "" || i > 0
		path := filepath.Join(dir, InstalledFile)
		if data, err := confine.ReadRegularFile(path, maxFile); err == nil {
			recs, err := ParseInstalled(path, data, dir, f.Home)
			if err != nil {
				r.problems = append(r.problems, err.Error())
			}
			for _, rec := range recs {
				rec.Seed = seed
				installs = append(installs, rec)
			}
		} else if !errors.Is(err, fs.ErrNotExist) {
			r.problems = append(r.problems, fmt.Sprintf("%s: cannot read: %v", path, err))
		}
		path = filepath.Join(dir, MarketplacesFile)
		if data, err := confine.ReadRegularFile(path, maxFile); err == nil {
			ms, err := ParseKnownMarketplaces(path, data, f.Home)
			if err != nil {
				r.problems = append(r.problems, err.Error())
			}
			for _, m := range ms {
				if _, ok := markets[m.Name]; !ok {
					markets[m.Name] = m.InstallLocation
				}
			}
		}
	}
	var layers []layer
	for _, src := range f.Settings {
		l, err := readEnabled(src, cwd)
		if f.tells(err) {
			r.problems = append(r.problems, err.Error())
		}
		if l.enabled != nil {
			layers = append(layers, l)
		}
	}
	for _, path := range f.managedFiles() {
		l, err := readEnabled(setup.User(path), cwd)
		if f.tells(err) {
			r.problems = append(r.problems, err.Error())
		}
		if l.enabled != nil {
			l.managed = true
			layers = append(layers, l)
		}
	}
	ids := map[string]bool{}
	for _, in := range installs {
		ids[in.ID] = true
	}
	for _, l := range layers {
		for id := range l.enabled {
			ids[id] = true
		}
	}
	sorted := make([]string, 0, len(ids))
	for id := range ids {
		sorted = append(sorted, id)
	}
	sort.Strings(sorted)
	for _, id := range sorted {
		f.decide(r, cwd, id, installs, markets, layers)
	}
	return r
}

// decide adds id to r's plugins or skipped list.
func (f *Finder) decide(r *resolved, cwd, id string, installs []Install, markets map[string]string, layers []layer) {
	var recs []Install
	for _, in := range installs {
		if in.ID == id {
			recs = append(recs, in)
		}
	}
	// The highest settings file that names the plugin decides.
	var by *layer
	userEnabled := false
	for i := range layers {
		v, ok := layers[i].enabled[id]
		if !ok {
			continue
		}
		by = &layers[i]
		if v && !layers[i].project {
			userEnabled = true
		}
	}
	rec, forProject := pick(recs, cwd)
	switch {
	case by != nil && !by.enabled[id] && by.managed:
		if len(recs) > 0 {
			r.skipped = append(r.skipped, Skipped{ID: id, Why: "blocked by the administrator's policy (" + by.path + "); no other settings file can enable it"})
		}
		return
	case by != nil && !by.enabled[id]:
		if len(recs) > 0 {
			r.skipped = append(r.skipped, Skipped{ID: id, Why: "disabled by " + by.path})
		}
		return
	case by == nil && rec == nil:
		return
	case by == nil && rec.Scope != "user" && !forProject:
		return // installed for another project
	}
	name, market, _ := strings.Cut(id, "@")
	root := ""
	if rec != nil && isDir(rec.Path) {
		root = rec.Path
	} else if loc := markets[market]; loc != "" {
		// A marketplace on disk holds a copy Claude Code also runs from.
		if data, err := confine.ReadRegularFile(filepath.Join(loc, ".claude-plugin", "marketplace.json"), maxFile); err == nil {
			if dir := marketplaceSource(loc, data, name); isDir(dir) {
				root = dir
			}
		}
	}
	if root == "" {
		why := fmt.Sprintf("enabled by %s but not installed (install it with `claude plugin install %s`)", by.path, id)
		if rec != nil {
			why = fmt.Sprintf("its folder %s is missing (reinstall it with `claude plugin install %s`)", rec.Path, id)
		}
		r.skipped = append(r.skipped, Skipped{ID: id, Why: why})
		return
	}
	parts, err := ReadParts(root, name)
	if err != nil {
		r.skipped = append(r.skipped, Skipped{ID: id, Why: err.Error()})
		return
	}
	p := Plugin{ID: id, Parts: parts, Root: root, DataDir: f.dataDir(id)}
	if by != nil {
		p.EnabledBy = by.path
		p.Project = by.project && !userEnabled && !forProject
	}
	r.plugins = append(r.plugins, p)
}

// pick chooses the install record to run: one made for this project,
// else the user's own, else a seed's. forProject reports the first case.
func pick(recs []Install, cwd string) (rec *Install, forProject bool) {
	for i := range recs {
		if recs[i].Scope != "user" && recs[i].ProjectPath != "" && within(recs[i].ProjectPath, cwd) {
			return &recs[i], true
		}
	}
	for _, seed := range []bool{false, true} {
		for i := range recs {
			if recs[i].Scope == "user" && recs[i].Seed == seed {
				return &recs[i], false
			}
		}
	}
	if len(recs) > 0 {
		return &recs[0], false
	}
	return nil, false
}

// dataDir is ${CLAUDE_PLUGIN_DATA}: <user folder>/plugins/data/<id>, the
// id's characters other than letters, digits, '_' and '-' turned into
// '-'.
func (f *Finder) dataDir(id string) string {
	if f.UserDir == "" {
		return ""
	}
	clean := strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			return r
		}
		return '-'
	}, id)
	return filepath.Join(f.UserDir, "plugins", "data", clean)
}

// tells reports whether err, from reading a settings file, is a problem
// to report (see SyntaxErrorsTold).
func (f *Finder) tells(err error) bool {
	var syn *notJSONError
	return err != nil && !(f.SyntaxErrorsTold && errors.As(err, &syn))
}

// notJSONError is a settings file that is not valid JSON.
type notJSONError struct{ msg string }

func (e *notJSONError) Error() string { return e.msg }

// Enablement is a plugin a settings file names in enabledPlugins.
type Enablement struct {
	ID      string
	Enabled bool
	// File is the settings file whose entry is in force.
	File string
}

// EnabledIn reads the enabledPlugins of files (user-level files such as
// the administrator's policy files, lowest precedence first) and returns
// the entries in force, sorted by ID: a later file's entry for a plugin
// replaces an earlier one's, as in Find. Problems name the files (or
// entries) that could not be read.
func EnabledIn(files []string) (entries []Enablement, problems []string) {
	byID := map[string]Enablement{}
	for _, path := range files {
		l, err := readEnabled(setup.User(path), "")
		if err != nil {
			problems = append(problems, err.Error())
		}
		for id, on := range l.enabled {
			byID[id] = Enablement{ID: id, Enabled: on, File: path}
		}
	}
	for _, e := range byID {
		entries = append(entries, e)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].ID < entries[j].ID })
	return entries, problems
}

// readEnabled reads the enabledPlugins of one settings file (a project's
// confined to the project). A missing file has none.
func readEnabled(src setup.Source, cwd string) (layer, error) {
	path := src.In(cwd)
	l := layer{path: path, project: src.Project}
	var data []byte
	var err error
	if src.Project {
		dirs := confine.New(cwd)
		data, err = dirs.ReadFile(path, maxSettings)
		dirs.Close()
	} else {
		data, err = confine.ReadRegularFile(path, maxFile)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return l, fmt.Errorf("%s: cannot read: %v", path, err)
	}
	var top struct {
		Enabled map[string]json.RawMessage `json:"enabledPlugins"`
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return l, nil
	}
	if err := json.Unmarshal(data, &top); err != nil {
		msg := fmt.Sprintf("%s: not valid JSON: %v; its enabledPlugins are not read", path, jsonPosition(data, err))
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return l, &notJSONError{msg}
		}
		return l, errors.New(msg)
	}
	if top.Enabled == nil {
		return l, nil
	}
	l.enabled = map[string]bool{}
	var bad []string
	for id, raw := range top.Enabled {
		var v bool
		if json.Unmarshal(raw, &v) != nil {
			bad = append(bad, id)
			continue
		}
		l.enabled[id] = v
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return l, fmt.Errorf("%s: enabledPlugins: %s must be true or false; ignored", path, strings.Join(bad, ", "))
	}
	return l, nil
}

func isDir(p string) bool {
	if p == "" {
		return false
	}
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
