package claude

import (
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/cordis-agent/cordis/bridge/claude/transcript"
	"github.com/cordis-agent/cordis/bridge/internal/engine"
	"github.com/cordis-agent/cordis/bridge/internal/guard"
	"github.com/cordis-agent/cordis/bridge/internal/rendering"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/internal/proc"
	"github.com/cordis-agent/cordis/internal/trust"
)

// Dialect is the trust store's name for Claude Code hooks.
const Dialect = "claude"

// Default timeouts (reference §4.3).
const (
	DefaultTimeout          = 600 * time.Second
	UserPromptSubmitTimeout = 30 * time.Second
	// SessionEndTimeout is the default for SessionEnd hooks (Claude Code
	// gives them a 1.5 s budget, CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS
	// overrides it); a hook's own timeout raises it up to
	// SessionEndMaxTimeout.
	SessionEndTimeout    = 1500 * time.Millisecond
	SessionEndMaxTimeout = 60 * time.Second
)

// Options are the bridge's settings that do not come from cordis.yml.
type Options struct {
	// Logger receives problems, warnings and per-command results (debug).
	Logger *slog.Logger
	// Home is the user's home directory for ~/.claude/settings.json (""
	// : os.UserHomeDir()).
	Home string
	// Name is the hooks' name in the pipeline ("": "bridge/claude").
	Name string
	// Priority places the bridge's hooks in each seam's pipeline.
	Priority int
	// OutputLimit caps each captured stream of a command (0:
	// hookproc.DefaultOutputLimit).
	OutputLimit int
	// Grace is the delay between SIGTERM and SIGKILL of a command's
	// process group (0: hookproc.DefaultGrace).
	Grace time.Duration
	// EnvPolicy decides what of cordis's environment hook commands
	// inherit (nil: proc.DefaultEnvPolicy).
	EnvPolicy *proc.EnvPolicy
	// Trust records which project hooks the user trusted (cmd/cordis
	// passes trust.Open(stateDir)). Without it no hook of a project file
	// found by discovery runs (each is reported as untrusted).
	Trust *trust.Store
	// Version is cordis's version, written on every transcript line.
	Version string
	// Managed lists an administrator's policy files (Claude Code's managed
	// settings, in merge order); their hooks run above every other
	// file's, need no trust, and a disableAllHooks elsewhere or /hooks
	// cannot turn them off. nil: none.
	Managed func() []string
	// ManagedOnly reports a policy under which only managed hooks run
	// (allowManagedHooksOnly). nil: none.
	ManagedOnly func() bool
	// Plugins lists the hook files of the Claude Code plugins in effect
	// for a session's cwd (see PluginHooks). nil: none.
	Plugins func(cwd string) []PluginHooks
}

// Bridge runs Claude Code hook commands on cordis's seams: the bridge
// engine (bridge/internal/engine) with Claude Code's tables and rules.
// One Bridge is shared by every session; Run, Applies, Problems and
// Doctor are safe for concurrent use.
type Bridge struct {
	*engine.Engine[handler]
	dialect *dialect
	trust   *trust.Store
}

// New returns a bridge for cfg. A relative cfg.Path is taken as is (the
// caller resolves it against the config file's directory).
func New(cfg Config, opts Options) *Bridge {
	d := &dialect{path: cfg.Path, home: opts.Home, log: opts.Logger, managed: opts.Managed, plugins: opts.Plugins,
		transcripts: rendering.NewSet(transcript.Format{Version: opts.Version})}
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	if d.home == "" && d.path == "" {
		d.home, d.userDir = userDirs()
	} else if d.home != "" {
		d.userDir = filepath.Join(d.home, ".claude")
	}
	e := engine.New(d, engine.Options{
		Name: opts.Name, Priority: opts.Priority, Logger: d.log, Trust: opts.Trust,
		GuardFailure: string(cfg.GuardFailure), OutputLimit: opts.OutputLimit, Grace: opts.Grace,
		EnvPolicy: opts.EnvPolicy, ManagedOnly: opts.ManagedOnly,
	})
	return &Bridge{Engine: e, dialect: d, trust: opts.Trust}
}

// Events are the seams the bridge serves, in registration order.
func Events() []hooks.Event { return append([]hooks.Event(nil), supportedEvents...) }

// Discover returns the Claude project settings files of cwd that exist
// (<cwd>/.claude/settings.json and settings.local.json, the ones that
// need trust) with their hooks: what `cordis hooks trust --cwd` trusts.
// In the home directory those files are the user's own, need no trust and
// are not returned.
func Discover(cwd string) []trust.Discovered {
	home, userDir := userDirs()
	return discover(userDir, home, cwd)
}

func discover(userDir, home, cwd string) []trust.Discovered {
	return engine.Discover[handler](&dialect{home: home, userDir: userDir, log: slog.New(slog.DiscardHandler)}, cwd)
}

// userDirs returns the user's home directory and Claude Code's user folder
// in it: $CLAUDE_CONFIG_DIR when set (Claude Code reads its user settings
// there), else <home>/.claude.
func userDirs() (home, userDir string) {
	home, _ = os.UserHomeDir()
	if dir := os.Getenv("CLAUDE_CONFIG_DIR"); dir != "" {
		return home, dir
	}
	if home == "" {
		return "", ""
	}
	return home, filepath.Join(home, ".claude")
}

// dialect is Claude Code's side of the engine.
type dialect struct {
	// path is the explicit hooks file of cordis.yml ("": discovery).
	path string
	home string
	// userDir holds the user's settings.json: $CLAUDE_CONFIG_DIR, as in
	// Claude Code, else <home>/.claude.
	userDir string
	// managed lists the policy's files (nil: none).
	managed func() []string
	// plugins lists the plugins' hook files for a cwd (nil: none).
	plugins func(cwd string) []PluginHooks
	log     *slog.Logger
	// transcripts are the sessions' transcripts, rendered from their logs
	// as hooks are about to run.
	transcripts *rendering.Set
}

var _ engine.Dialect[handler] = (*dialect)(nil)

func (d *dialect) Info() engine.Info {
	return engine.Info{
		Name:  Dialect,
		Guard: guard.Dialect{Name: "Claude", Original: "Claude Code", Plugin: "bridge/claude"},
		Dedup: true, // Claude Code runs an identical handler once
	}
}

func (d *dialect) Seams() []engine.Seam {
	out := make([]engine.Seam, len(supportedEvents))
	for i, ev := range supportedEvents {
		out[i] = engine.Seam{Event: ev, Key: string(ev)}
	}
	return out
}

// Layers are the files that configure hooks for a session in cwd, lowest
// precedence first: the explicit file alone, or ~/.claude/settings.json,
// then the project's .claude/settings.json and .claude/settings.local.json.
// When cwd is the home directory its .claude files are the user's own and
// need no trust.
func (d *dialect) Layers(cwd string) []engine.Layer {
	if d.path != "" {
		return append([]engine.Layer{{Path: d.path, Explicit: true}}, d.managedLayers()...)
	}
	var out []engine.Layer
	add := func(p string, project bool) {
		for _, l := range out {
			if l.Path == p {
				return
			}
		}
		out = append(out, engine.Layer{Path: p, Project: project})
	}
	if d.userDir != "" {
		add(filepath.Join(d.userDir, "settings.json"), false)
	}
	out = append(out, d.pluginLayers(cwd)...)
	if cwd != "" {
		if abs, err := filepath.Abs(cwd); err == nil {
			cwd = abs
		}
		project := !trust.SamePath(cwd, d.home)
		add(filepath.Join(cwd, ".claude", "settings.json"), project)
		add(filepath.Join(cwd, ".claude", "settings.local.json"), project)
	}
	return append(out, d.managedLayers()...)
}

// managedLayers are the policy's files, highest precedence: last.
func (d *dialect) managedLayers() []engine.Layer {
	if d.managed == nil {
		return nil
	}
	var out []engine.Layer
	for _, p := range d.managed() {
		out = append(out, engine.Layer{Path: p, Managed: true})
	}
	return out
}

// Parse parses a settings file; one that is not JSON has that problem and
// no hooks.
func (d *dialect) Parse(l engine.Layer, data []byte) *engine.File[handler] {
	if l.Format == pluginManifest {
		data = manifestHooks(data)
	}
	s, err := parseSettings(l.Path, data)
	if err != nil {
		return &engine.File[handler]{Problems: []string{err.Error()}}
	}
	f := &engine.File[handler]{ByEvent: map[string][]handler{}, Problems: s.problems, Warnings: s.warnings, DisableAll: s.disable}
	if l.Env != nil {
		f.DisableAll = nil // a plugin's hooks file is no settings file
	}
	for _, ev := range sortedEvents {
		for _, g := range s.events[ev] {
			hs := withPluginVars(g.hooks, l.Env)
			f.ByEvent[string(ev)] = append(f.ByEvent[string(ev)], hs...)
			f.All = append(f.All, hs...)
		}
	}
	f.Declares = len(f.All) > 0
	return f
}

// Match tests a handler's matcher against the event's value (tool name,
// source, ...) and its `if` filter against the call.
func (d *dialect) Match(in *hooks.Input) func(handler) bool {
	value, matchable := matchValue(in)
	return func(h handler) bool {
		if matchable && !h.matcher.match(value) {
			return false
		}
		return h.ifRule == "" || ifMatches(h.ifRule, in, d.home)
	}
}
