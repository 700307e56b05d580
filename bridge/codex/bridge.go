package codex

import (
	"fmt"
	"iter"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/cordis-agent/cordis/bridge/codex/rollout"
	"github.com/cordis-agent/cordis/bridge/internal/engine"
	"github.com/cordis-agent/cordis/bridge/internal/guard"
	"github.com/cordis-agent/cordis/bridge/internal/rendering"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/internal/proc"
	"github.com/cordis-agent/cordis/internal/trust"
)

// Dialect is the trust store's name for Codex hooks.
const Dialect = "codex"

// Options are what the bridge needs besides its Config.
type Options struct {
	// Name names the bridge's hooks in the pipeline and the session log
	// (default "bridge/codex"; cmd/cordis passes the config entry's id).
	Name string
	// BaseDir resolves a relative Config.Path (default: the process's
	// working directory; cmd/cordis resolves it against the config file).
	BaseDir string
	// Priority places the bridge's hooks in each seam's pipeline.
	Priority int
	// Home is the user's home directory, for ~/.codex/hooks.json and
	// ~/.codex/config.toml. Without it the user folder is $CODEX_HOME, as
	// in Codex, else ~/.codex of os.UserHomeDir.
	Home string
	// Trust records which project hooks the user trusted. Without it no
	// project hook runs (each is reported as untrusted).
	Trust *trust.Store
	// ManagedOnly reports an administrator's policy that only managed
	// hooks run (Claude Code's allowManagedHooksOnly, which cmd/cordis
	// applies to every dialect): Codex's hooks are then skipped. nil: no
	// such policy.
	ManagedOnly func() bool
	// EnvPolicy decides what of cordis's environment hook commands
	// inherit (nil: proc.DefaultEnvPolicy).
	EnvPolicy *proc.EnvPolicy
	// Shell is the argv a command string is appended to (default
	// hookproc.LoginShell(): `$SHELL -lc`, else `/bin/sh -lc`).
	Shell []string
	// Logger receives load problems and failed runs.
	Logger *slog.Logger
	// Version is cordis's version (the rollout's cli_version).
	Version string
	// ModelProvider names the model provider (the rollout's
	// model_provider), asked as each rollout starts; nil leaves it out.
	ModelProvider func() string
}

// Bridge runs Codex CLI hook commands on cordis's seams: the bridge
// engine (bridge/internal/engine) with Codex's tables and rules. See the
// package documentation.
type Bridge struct {
	*engine.Engine[*handler]
	dialect *dialect
}

// New returns a bridge for cfg. It reads nothing yet: files are loaded
// (and reloaded when they change) as sessions use them.
func New(cfg Config, opts Options) *Bridge {
	d := newDialect(cfg, opts)
	e := engine.New(d, engine.Options{
		Name: opts.Name, Priority: opts.Priority, Logger: opts.Logger, Trust: opts.Trust,
		GuardFailure: string(cfg.GuardFailure), EnvPolicy: opts.EnvPolicy, ManagedOnly: opts.ManagedOnly,
	})
	return &Bridge{Engine: e, dialect: d}
}

func newDialect(cfg Config, opts Options) *dialect {
	d := &dialect{shell: opts.Shell, sessions: sessions{m: map[string]*sessionState{}}, log: opts.Logger,
		rollouts: rendering.NewSet(rollout.Format{Version: opts.Version, ModelProvider: opts.ModelProvider})}
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	switch home := opts.Home; {
	case home != "":
		d.userDir = filepath.Join(home, ".codex")
	case os.Getenv("CODEX_HOME") != "":
		d.userDir = os.Getenv("CODEX_HOME")
	default:
		if home, _ = os.UserHomeDir(); home != "" {
			d.userDir = filepath.Join(home, ".codex")
		}
	}
	if cfg.Path != "" {
		p := cfg.Path
		if !filepath.IsAbs(p) && opts.BaseDir != "" {
			p = filepath.Join(opts.BaseDir, p)
		}
		d.explicit, _ = filepath.Abs(p)
	}
	return d
}

// Discover returns the Codex project hook files of cwd (the ones that
// need trust) with their hooks: what `cordis hooks trust --cwd` trusts.
// They are <cwd>/.codex/hooks.json and <cwd>/.codex/config.toml, each
// when it exists; a config.toml only when it declares hooks in [hooks] or
// is broken (its Problems say why). A layer that is also the user level
// (cwd is the home directory) needs no trust and is not returned.
func Discover(cwd string) []trust.Discovered {
	return engine.Discover[*handler](newDialect(Config{}, Options{}), cwd)
}

// dialect is Codex's side of the engine.
type dialect struct {
	explicit string
	userDir  string // the user layer: $CODEX_HOME or <home>/.codex
	shell    []string
	// sessions is what the dialect remembers per session: files' content
	// before an edit, subagent types.
	sessions sessions
	// rollouts are the sessions' rollouts, rendered from their logs as
	// hooks are about to run.
	rollouts *rendering.Set
	log      *slog.Logger
}

var (
	_ engine.Dialect[*handler]  = (*dialect)(nil)
	_ engine.Observer[*handler] = (*dialect)(nil)
)

func (d *dialect) Info() engine.Info {
	return engine.Info{Name: Dialect, Guard: guard.Dialect{Name: "Codex", Original: "Codex", Plugin: "bridge/codex"},
		AsyncLimit: asyncLimit}
}

// Seams are SessionStart, UserPromptSubmit, PreToolUse,
// PermissionRequest, PostToolUse (and PostToolUseFailure, which runs
// Codex's PostToolUse hooks), Stop, SubagentStart, SubagentStop,
// PreCompact, PostCompact, SessionEnd and Interrupt.
func (d *dialect) Seams() []engine.Seam {
	out := make([]engine.Seam, len(seamEvents))
	for i, s := range seamEvents {
		out[i] = engine.Seam{Event: s.seam, Key: s.codex}
	}
	return out
}

// Codex's file names in a .codex directory.
const (
	hooksJSONName  = "hooks.json"
	configTOMLName = "config.toml"
)

// Layers are the files in effect for a session in cwd, in the order
// their hooks run: the explicit path alone, or the user layer
// (~/.codex/hooks.json then ~/.codex/config.toml) then the project layer
// (<cwd>/.codex/hooks.json then <cwd>/.codex/config.toml). Within a layer
// hooks.json comes first, as in Codex, which warns when both declare
// hooks.
func (d *dialect) Layers(cwd string) []engine.Layer {
	if d.explicit != "" {
		return []engine.Layer{{Path: d.explicit, Format: formatOf(d.explicit), Explicit: true}}
	}
	var out []engine.Layer
	layer := func(dir string, project bool) {
		js, toml := filepath.Join(dir, hooksJSONName), filepath.Join(dir, configTOMLName)
		out = append(out, engine.Layer{Path: js, Project: project}, engine.Layer{
			Path: toml, Format: formatTOML, Project: project, Optional: true, Sibling: js,
			Overlap: fmt.Sprintf("%s: loading hooks from both %s and this file's [hooks] (%s first); prefer a single representation for this layer", toml, js, hooksJSONName),
		})
	}
	if d.userDir != "" {
		layer(d.userDir, false)
	}
	if cwd != "" {
		proj := filepath.Join(cwd, ".codex")
		if abs, err := filepath.Abs(proj); err == nil {
			proj = abs
		}
		if !trust.SamePath(proj, d.userDir) {
			layer(proj, true)
		}
	}
	return out
}

// formatTOML is the Layer.Format of a config.toml.
const formatTOML = "toml"

// formatOf is the format of an explicit hook file, by its extension.
func formatOf(path string) string {
	if isTOMLPath(path) {
		return formatTOML
	}
	return ""
}

// Parse parses a hooks.json, or the [hooks] table of a config.toml.
func (d *dialect) Parse(l engine.Layer, data []byte) *engine.File[*handler] {
	var f *hookFile
	if l.Format == formatTOML {
		f = parseTOMLFile(l.Path, data)
	} else {
		f = parseFile(l.Path, data)
	}
	return &engine.File[*handler]{ByEvent: f.handlers, All: f.all, Problems: f.problems, Declares: f.declared}
}

// Match tests a group's matcher against the event's values: the tool's
// Codex name and aliases, the source, trigger or (remembered) agent type.
// Matchers of UserPromptSubmit and Stop are ignored.
func (d *dialect) Match(in *hooks.Input) func(*handler) bool {
	event, _ := codexEventOf(in.Event)
	var name string
	var aliases []string
	if isToolEvent(event) {
		name, aliases = codexToolName(in.ToolName)
	}
	view := in
	if t := d.sessions.agentType(in); t != in.AgentType {
		c := *in
		c.AgentType = t
		view = &c
	}
	vals, useMatcher := matchValues(event, view, &toolView{name: name, aliases: aliases})
	return func(h *handler) bool { return !useMatcher || h.matcher.match(vals...) }
}

// Observes asks to see, besides the calls that run hooks: PreToolUse of an
// Edit/Write that a PostToolUse hook will see (the file's content before
// the call makes its patch), PostToolUse of a call whose content was kept
// (to forget it), SubagentStart (to remember the subagent's type, which
// later seams lack) and SessionEnd of a session with such memories.
func (d *dialect) Observes(in *hooks.Input, runnable iter.Seq[*handler]) bool {
	event, _ := codexEventOf(in.Event)
	switch {
	case event == evPreToolUse && isPatchTool(in.ToolName) && in.ToolUseID != "":
		for h := range runnable {
			if h.event == evPostToolUse && h.matcher.match(toolApplyPatch, "Edit", "Write") {
				return true
			}
		}
	case event == evPostToolUse:
		return d.sessions.hasSnapshot(in.SessionID, in.ToolUseID)
	case event == evSubagentStart && in.AgentID != "":
		for range runnable {
			return true
		}
	case event == evSessionEnd:
		return d.sessions.has(in.SessionID)
	}
	return false
}

func isToolEvent(event string) bool {
	return event == evPreToolUse || event == evPermissionRequest || event == evPostToolUse
}

// codexToolName is a cordis tool's name in Codex and the other names its
// matchers answer to.
func codexToolName(tool string) (string, []string) {
	if isPatchTool(tool) {
		return toolApplyPatch, []string{"Edit", "Write"}
	}
	return tool, nil
}

// trustHook is h's identity in the trust store.
func trustHook(h *handler) trust.Hook {
	return trust.Hook{Dialect: Dialect, Source: h.file.path, Event: h.event, Matcher: h.matcher.raw, Type: "command", Command: h.command}
}

func (h *handler) Identity() trust.Hook { return trustHook(h) }

// Advisory: an async hook cannot block, so it is no guard.
func (h *handler) Advisory() bool { return h.async }
