package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cordis-agent/cordis/bridge/claude"
	"github.com/cordis-agent/cordis/bridge/codex"
	"github.com/cordis-agent/cordis/cmd/cordis/config"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/hooks/builtin"
	"github.com/cordis-agent/cordis/internal/claudecode/plugins"
	subproc "github.com/cordis-agent/cordis/internal/proc"
	"github.com/cordis-agent/cordis/internal/secrets"
	"github.com/cordis-agent/cordis/internal/trust"
	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/llm/anthropic"
	"github.com/cordis-agent/cordis/llm/openai"
	"github.com/cordis-agent/cordis/llm/replay"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/tools"
)

// builtinDefault is the configuration cordis runs when no config file is
// found: the Anthropic provider (key from ANTHROPIC_API_KEY, base URL from
// ANTHROPIC_BASE_URL), the built-in hooks with their defaults, and both
// hook bridges on their standard files. default.yml is its documented
// form, and TestBuiltinDefaultIsDefaultYAML holds the two equal, entry
// sources included: building it in Go spares every start of the agent
// without a cordis.yml a YAML parse, which was the largest part of the
// time to the first answer (BENCHMARKS.md).
func builtinDefault() *config.Config {
	at := func(line int) string { return fmt.Sprintf("%s:%d", config.EmbeddedSource, line) }
	return &config.Config{Plugins: []config.Plugin{
		{ID: "agent", Name: "agent", Config: &agentConfig{}, Source: at(2)},
		{ID: "llm", Name: "llm/anthropic", Config: &anthropic.Config{Model: "claude-sonnet-4-5", MaxTokens: 8192}, Source: at(5)},
		{ID: "hooks", Name: "hooks/builtin", Config: builtin.DefaultConfig(), Source: at(10)},
		{ID: "claude-hooks", Name: "bridge/claude", Config: &claude.Config{}, Source: at(31)},
		{ID: "codex-hooks", Name: "bridge/codex", Config: &codex.Config{}, Source: at(36)},
	}}
}

// agentConfig is the `agent` plugin: settings of the loop itself.
type agentConfig struct {
	Models              []string `yaml:"models,omitempty" json:"models,omitempty" jsonschema:"description=Models offered in the editor's model picker; the provider's model is always included"`
	DefaultMode         string   `yaml:"defaultMode,omitempty" json:"defaultMode,omitempty" jsonschema:"enum=default,enum=acceptEdits,enum=plan,enum=bypassPermissions,description=Permission mode of new sessions (default: default)"`
	MaxTurnRequests     int      `yaml:"maxTurnRequests,omitempty" json:"maxTurnRequests,omitempty" jsonschema:"minimum=1,description=Model requests allowed in one prompt turn before it stops with max_turn_requests (default 100)"`
	MaxStopBlocks       int      `yaml:"maxStopBlocks,omitempty" json:"maxStopBlocks,omitempty" jsonschema:"minimum=1,description=Consecutive Stop-hook blocks honoured before the turn ends anyway (default 8)"`
	MaxSubagentDepth    int      `yaml:"maxSubagentDepth,omitempty" json:"maxSubagentDepth,omitempty" jsonschema:"minimum=1,description=How deep Task subagents may nest (default 1)"`
	ContextWindow       int      `yaml:"contextWindow,omitempty" json:"contextWindow,omitempty" jsonschema:"minimum=1,description=Caps every model's context window in tokens (default: each model's own window from the model table)"`
	SystemPrompt        string   `yaml:"systemPrompt,omitempty" json:"systemPrompt,omitempty" jsonschema:"description=Replaces the built-in base system prompt"`
	ExtraDirectories    []string `yaml:"extraDirectories,omitempty" json:"extraDirectories,omitempty" jsonschema:"description=Absolute directories tools may use besides the session's working directory"`
	MCPStartTimeout     string   `yaml:"mcpStartTimeout,omitempty" json:"mcpStartTimeout,omitempty" jsonschema:"description=How long an editor MCP server may take to start and list its tools (Go duration; default 10s)"`
	MCPCallTimeout      string   `yaml:"mcpCallTimeout,omitempty" json:"mcpCallTimeout,omitempty" jsonschema:"description=How long one MCP tool call may take (Go duration; default 120s)"`
	SessionStartTimeout string   `yaml:"sessionStartTimeout,omitempty" json:"sessionStartTimeout,omitempty" jsonschema:"description=How long SessionStart hooks may hold session/new or session/load before they are stopped and their context skipped (Go duration; default 10s)"`
	// The Notification seam's waits (loop/notify.go); scenarios shorten
	// the permission one so that a snapshot need not wait six seconds.
	PermissionNotifyAfter string   `yaml:"permissionNotifyAfter,omitempty" json:"permissionNotifyAfter,omitempty" jsonschema:"description=How long a permission request waits unanswered before Notification hooks run with permission_prompt (Go duration; default 6s)"`
	IdleNotifyAfter       string   `yaml:"idleNotifyAfter,omitempty" json:"idleNotifyAfter,omitempty" jsonschema:"description=How long cordis waits for a new prompt after a turn before Notification hooks run with idle_prompt (Go duration; default 60s)"`
	ExposeEnv             []string `yaml:"exposeEnv,omitempty" json:"exposeEnv,omitempty" jsonschema:"description=Provider key variables to pass to hooks and commands after all (by default API keys never reach subprocesses)"`
	// ModelTable overrides the built-in model table, per model name (its
	// dated snapshots included) or per prefix ending in "*".
	ModelTable map[string]llm.ModelSpec `yaml:"modelTable,omitempty" json:"modelTable,omitempty" jsonschema:"description=What cordis knows of a model (context window and output limit and images and thinking form and prices) per model name or prefix ending in *; overrides the built-in table"`
	WebFetch   webFetchConfig           `yaml:"webFetch,omitempty" json:"webFetch,omitempty" jsonschema:"description=The WebFetch tool: which private addresses it may reach and its limits and the small model that applies its prompt"`
	Sandbox    *sandboxConfig           `yaml:"sandbox,omitempty" json:"sandbox,omitempty" jsonschema:"description=The sandbox Bash commands run in: the keys of Claude Code's sandbox settings block; above your Claude Code settings and below managed settings (a project's cordis.yml may not set it)"`
}

// sandboxConfig is agent.sandbox: Claude Code's `sandbox` settings block
// in cordis.yml, read as one more layer of it (permrules.SandboxSettings).
type sandboxConfig struct {
	Enabled                  *bool    `yaml:"enabled,omitempty" json:"enabled,omitempty" jsonschema:"description=Run every Bash command in the workspace sandbox"`
	AutoAllowBashIfSandboxed *bool    `yaml:"autoAllowBashIfSandboxed,omitempty" json:"autoAllowBashIfSandboxed,omitempty" jsonschema:"description=Run confined commands without asking (default true)"`
	ExcludedCommands         []string `yaml:"excludedCommands,omitempty" json:"excludedCommands,omitempty" jsonschema:"description=Commands that run outside the sandbox through the ordinary questions (docker or docker *)"`
	AllowUnsandboxedCommands *bool    `yaml:"allowUnsandboxedCommands,omitempty" json:"allowUnsandboxedCommands,omitempty" jsonschema:"description=Whether the model may ask to run a command outside the sandbox (asked every time; default true)"`
	Filesystem               struct {
		AllowWrite []string `yaml:"allowWrite,omitempty" json:"allowWrite,omitempty" jsonschema:"description=More writable paths (//abs or ~/home or relative to the session's folder)"`
		DenyWrite  []string `yaml:"denyWrite,omitempty" json:"denyWrite,omitempty" jsonschema:"description=Paths that stay read-only inside writable ones"`
		DenyRead   []string `yaml:"denyRead,omitempty" json:"denyRead,omitempty" jsonschema:"description=Paths confined commands cannot read"`
	} `yaml:"filesystem,omitempty" json:"filesystem,omitempty"`
	Network struct {
		AllowedDomains      []string `yaml:"allowedDomains,omitempty" json:"allowedDomains,omitempty" jsonschema:"description=Hosts reached without asking (example.com or *.example.com with an optional :port)"`
		DeniedDomains       []string `yaml:"deniedDomains,omitempty" json:"deniedDomains,omitempty" jsonschema:"description=Hosts never reached"`
		AllowAllUnixSockets *bool    `yaml:"allowAllUnixSockets,omitempty" json:"allowAllUnixSockets,omitempty" jsonschema:"description=Let confined commands open Unix sockets (the Docker socket and ssh-agent become reachable)"`
	} `yaml:"network,omitempty" json:"network,omitempty"`
}

// webFetchConfig is agent.webFetch: loop.Config.Web as the user writes
// it. A project's cordis.yml may not open private addresses
// (project_config.go).
type webFetchConfig struct {
	AllowPrivateNetworks bool     `yaml:"allowPrivateNetworks,omitempty" json:"allowPrivateNetworks,omitempty" jsonschema:"description=Lets WebFetch reach every loopback and private and link-local address; by default they are refused so that a page or a prompt cannot make the model probe the local network or a cloud metadata service"`
	AllowPrivateRanges   []string `yaml:"allowPrivateRanges,omitempty" json:"allowPrivateRanges,omitempty" jsonschema:"description=Private addresses or CIDR ranges WebFetch may reach (such as 127.0.0.1 for a local docs server or 10.1.0.0/16 for an intranet); the rest stay refused"`
	Timeout              string   `yaml:"timeout,omitempty" json:"timeout,omitempty" jsonschema:"description=How long one fetch may take (Go duration; default 30s)"`
	MaxRedirects         int      `yaml:"maxRedirects,omitempty" json:"maxRedirects,omitempty" jsonschema:"minimum=1,description=Redirects followed on the same host (default 10); a redirect to another host is reported to the model and never followed"`
	MaxBytes             int64    `yaml:"maxBytes,omitempty" json:"maxBytes,omitempty" jsonschema:"minimum=1,description=Bytes of a response read (default 10485760)"`
	MaxChars             int      `yaml:"maxChars,omitempty" json:"maxChars,omitempty" jsonschema:"minimum=1,description=Characters of a page returned to the model (default 100000); the rest is cut with a marker"`
	Model                string   `yaml:"model,omitempty" json:"model,omitempty" jsonschema:"description=A small model (such as claude-haiku-4-5) that applies each call's prompt to the page through the session's provider and returns its answer instead of the page (billed at its model table prices); off or unset (the default) returns the page itself"`
}

// summaryModelOff is the webFetch.model value that turns the small model
// off explicitly (a project's way to do it).
const summaryModelOff = "off"

// options is the loop's WebOptions for c; where names the entry in
// errors.
func (c webFetchConfig) options(where string) (*tools.WebOptions, error) {
	if reflect.ValueOf(c).IsZero() {
		return nil, nil // WebFetch's own defaults
	}
	opts := &tools.WebOptions{AllowPrivate: c.AllowPrivateNetworks, MaxRedirects: c.MaxRedirects, MaxBytes: c.MaxBytes, MaxChars: c.MaxChars}
	if m := strings.TrimSpace(c.Model); m != summaryModelOff {
		opts.SummaryModel = m
	}
	for _, r := range c.AllowPrivateRanges {
		prefix, err := netip.ParsePrefix(r)
		if err != nil {
			addr, aerr := netip.ParseAddr(r)
			if aerr != nil {
				return nil, fmt.Errorf("%s: webFetch.allowPrivateRanges: want an IP address or a CIDR range like 10.1.0.0/16, got %q", where, r)
			}
			prefix = netip.PrefixFrom(addr.Unmap(), addr.Unmap().BitLen())
		}
		opts.AllowPrivateRanges = append(opts.AllowPrivateRanges, prefix.Masked())
	}
	if c.Timeout != "" {
		d, err := time.ParseDuration(c.Timeout)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("%s: webFetch.timeout: want a positive duration like 30s, got %q", where, c.Timeout)
		}
		opts.Timeout = d
	}
	for field, v := range map[string]int64{"maxRedirects": int64(c.MaxRedirects), "maxBytes": c.MaxBytes, "maxChars": int64(c.MaxChars)} {
		if v < 0 {
			return nil, fmt.Errorf("%s: webFetch.%s: want a positive number, got %d", where, field, v)
		}
	}
	return opts, nil
}

// newRegistry lists every plugin compiled into cordis.
func newRegistry() *config.Registry {
	reg := &config.Registry{}
	reg.Register("agent", func() any { return &agentConfig{} }, "Settings of the agent loop: models offered, permission mode, limits")
	reg.Register("llm/anthropic", func() any { return &anthropic.Config{} }, "Anthropic Messages API (streaming); key from ANTHROPIC_API_KEY")
	reg.Register("llm/openai", func() any { return &openai.Config{} }, "OpenAI-compatible Chat Completions API (OpenAI, DeepSeek, local servers)")
	reg.Register("bridge/claude", func() any { return &claude.Config{} }, "Runs Claude Code hook commands (settings.json \"hooks\") on the agent's seams")
	reg.Register("bridge/codex", func() any { return &codex.Config{} }, "Runs Codex CLI hook commands (hooks.json, or [hooks] in config.toml) on the agent's seams, with Codex's semantics")
	reg.Register("hooks/builtin", func() any { return builtin.DefaultConfig() }, "Built-in governance hooks: permission rules, secret redaction, budget, audit log, output compression, metrics, context monitor, project instructions, todo enforcement")
	reg.Register("llm/replay", func() any { return &replay.Config{} }, "Recorded model responses for the snapshot harness (key-free; see README \"Snapshot tests\")")
	return reg
}

// loadAgentConfig finds and loads the config, lays a trusted project
// cordis.yml over it (project_config.go), and builds the loop's Config from
// the plugins. keyEnv names the variables that hold the enabled providers'
// keys.
func loadAgentConfig(f *flags, stateDir string, logger *slog.Logger) (_ *loop.Config, keyEnv []string, _ error) {
	cwd, _ := os.Getwd()
	userDir, _ := os.UserConfigDir()
	path, found := config.Locate(f.config, os.Getenv, cwd, userDir)
	reg := newRegistry()
	cfg := builtinDefault()
	if found {
		var err error
		if cfg, err = config.Load(path, reg, os.Getenv); err != nil {
			return nil, nil, err
		}
	}
	for _, w := range cfg.Warnings {
		logger.Warn("config", "warning", w)
	}
	project := applyProjectConfig(cfg, cwd, trust.Open(stateDir), reg)
	if n := project.Notice(); n != "" {
		logger.Warn("project config", "notice", n)
	}
	creds, credsErr := userCredentials()
	out, err := assemble(cfg, stateDir, logger, project, creds)
	if err != nil {
		return nil, nil, err
	}
	keyEnv = providerKeyEnv(cfg)
	if len(keyEnv) > 0 {
		out.KeyEnv = keyEnv[0]
	}
	if credsErr == nil {
		out.Login = loginMethod(f, creds, keyEnv)
	}
	return out, keyEnv, nil
}

// loginMethod is `cordis login` as the editor runs it in a terminal: this
// binary, with the config the agent was started with.
func loginMethod(f *flags, creds credentialFile, keyEnv []string) *loop.LoginMethod {
	exe, err := os.Executable()
	if err != nil || len(keyEnv) == 0 {
		return nil
	}
	args := []string{"login"}
	if f.config != "" {
		abs, _ := filepath.Abs(f.config)
		args = append(args, "--config", abs)
	}
	store := func(key string) error {
		// Scrubbed from now on, as a key read from the file would be.
		secrets.Register(keyEnv[0], key)
		return creds.store(keyEnv[0], key)
	}
	return &loop.LoginMethod{Command: exe, Args: args, Logout: func() error { return creds.remove(keyEnv...) }, Store: store, Where: creds.path}
}

// providerKeyEnv names the variables holding the keys of the enabled
// providers.
func providerKeyEnv(cfg *config.Config) []string {
	var names []string
	for _, p := range cfg.Enabled() {
		switch c := p.Config.(type) {
		case *anthropic.Config:
			names = append(names, cmp.Or(c.APIKeyEnv, anthropic.DefaultAPIKeyEnv))
		case *openai.Config:
			names = append(names, cmp.Or(c.APIKeyEnv, "OPENAI_API_KEY"))
		}
	}
	return names
}

func assemble(cfg *config.Config, stateDir string, logger *slog.Logger, project *projectOverlay, creds credentialFile) (*loop.Config, error) {
	// What subprocesses inherit: never a provider key, unless the user's
	// agent.exposeEnv names it. Known before any plugin is built, since the
	// bridges take it.
	keyEnv := providerKeyEnv(cfg)
	envPolicy := subproc.NewEnvPolicy(keyEnv, exposedEnv(cfg))
	// The pipeline of every hook plugin (built-ins, bridges).
	pipe := hooks.NewPipeline(hooks.WithLogger(logger))
	out := &loop.Config{StateDir: stateDir, Logger: logger, Hooks: pipe, EnvPolicy: envPolicy}
	// Where commands, skills, subagents and settings are read from.
	user := findSetup()
	user.claudeHooksTell = slices.ContainsFunc(cfg.Enabled(), func(p config.Plugin) bool {
		c, ok := p.Config.(*claude.Config)
		return p.Name == "bridge/claude" && ok && c.Path == ""
	})
	out.Home, out.Sources = user.home, user.commandSources()
	// Claude Code's plugins and the setup's MCP servers, for each
	// session's project (claude_plugins.go, mcpconfig.go).
	finder := user.pluginFinder(trust.Open(stateDir))
	out.Sources.Bundles = pluginBundles(finder)
	// A file's ${VAR} never reads a provider key, even one agent.exposeEnv
	// passes to subprocesses.
	setupMCP := newMCPSetup(user, finder, trust.Open(stateDir), subproc.NewEnvPolicy(keyEnv, nil))
	setupMCP.codexHooksTell = slices.ContainsFunc(cfg.Enabled(), func(p config.Plugin) bool { return p.Name == "bridge/codex" })
	out.SetupMCP, out.MCPPolicy = setupMCP.servers, setupMCP.refuses
	// Keys come from the environment or cordis's credential file (read
	// on each use, and registered for scrubbing when read).
	getenv := keyGetenv(creds, keyEnv)
	for _, name := range keyEnv {
		secrets.Register(name, getenv(name))
	}
	a := &assembly{out: out, stateDir: stateDir, logger: logger, user: user, getenv: getenv,
		// Plugins register on a batch that joins the pipeline in one change.
		batch: &hooks.Batch{},
		// doctors add lines to /doctor: config files, hook files, trust.
		doctors: []func(cwd string) []string{func(string) []string { return append(configReport(cfg), project.Report()...) }, pluginDoctor(finder)},
		plugins: finder,
	}
	if notice := project.Notice(); notice != "" {
		registerNotice(a.batch, "project-config", notice)
	}
	out.Doctor = a.doctor
	limit, problem := mcpOutputTokens(os.Getenv(mcpOutputTokensEnv))
	out.MCP.MaxOutputTokens = limit
	if problem != "" {
		logger.Warn("environment", "warning", problem)
		a.doctors = append(a.doctors, func(string) []string { return []string{"✗ " + problem} })
	}
	// The model table comes first: the providers check their settings
	// against it (the thinking form) as they are built.
	table, err := modelTable(cfg)
	if err != nil {
		return nil, err
	}
	out.ModelTable = table
	llm.SetModelTable(table)
	for _, p := range cfg.Enabled() {
		if err := a.add(p); err != nil {
			return nil, err
		}
	}
	if !hasPlugin(cfg, "hooks/builtin") {
		// No entry at all (an older cordis.yml): the built-in defaults, so
		// that AGENTS.md / CLAUDE.md still reach the model. An entry with
		// disabled: true turns them all off.
		if err := registerBuiltins(a.batch, builtin.DefaultConfig(), out, stateDir, user, logger); err != nil {
			return nil, err
		}
	}
	// The settings files' defaultMode, additionalDirectories and bypass
	// lock, over cordis.yml's agent.defaultMode (out.DefaultMode, "" when
	// unset); their report joins /doctor.
	user.sandbox, user.sandboxFrom = a.sandbox, a.sandboxFrom
	wireSessionSettings(out, user, stateDir, out.DefaultMode, func(cwd string) []string { return pluginProblems(finder.Find(cwd)) })
	a.doctors = append(a.doctors, func(cwd string) []string { return settingsReport(user, stateDir, cwd) })
	pipe.Add(a.batch)
	switch len(a.providers) {
	case 0:
		return nil, fmt.Errorf("no model provider enabled: add an llm/anthropic or llm/openai entry to the config")
	case 1:
	default:
		return nil, fmt.Errorf("%d model providers enabled (%s): disable all but one", len(a.providers), strings.Join(a.providers, ", "))
	}
	if out.Model == "" {
		return nil, fmt.Errorf("the model provider %s has no model: set config.model", a.providers[0])
	}
	var _ llm.Provider = out.Provider
	return out, nil
}

// assembly is the loop's Config being built from the plugin entries.
type assembly struct {
	out *loop.Config
	// sandbox is agent.sandbox as JSON, and where it was written.
	sandbox        []byte
	sandboxFrom    string
	stateDir       string
	logger         *slog.Logger
	user           userSetup
	getenv         func(string) string
	batch          *hooks.Batch
	doctors        []func(cwd string) []string
	providers      []string // ids of the provider entries
	plugins        *plugins.Finder
	builtinEntries int
}

func (a *assembly) doctor(cwd string) []string {
	var lines []string
	for _, d := range a.doctors {
		lines = append(lines, d(cwd)...)
	}
	return lines
}

// add wires one enabled plugin entry.
func (a *assembly) add(p config.Plugin) error {
	fail := func(err error) error { return fmt.Errorf("%s: entry %q: %v", p.Source, p.ID, err) }
	out := a.out
	switch c := p.Config.(type) {
	case *agentConfig:
		return a.agent(p, c)
	case *anthropic.Config:
		prov, err := anthropic.New(*c, anthropic.WithLogger(a.logger), anthropic.WithGetenv(a.getenv))
		if err != nil {
			return fail(err)
		}
		out.Provider, out.Model, out.MaxTokens = prov, cmp.Or(c.Model, "claude-sonnet-4-5"), c.MaxTokens
		out.ThinkingBudget = c.ThinkingBudget
		a.providers = append(a.providers, p.ID)
	case *replay.Config:
		prov, err := replay.New(*c, replay.WithLogger(a.logger))
		if err != nil {
			return fail(err)
		}
		out.Provider, out.Model, out.MaxTokens = prov, prov.Model(), prov.MaxTokens()
		a.providers = append(a.providers, p.ID)
	case *openai.Config:
		prov, err := openai.New(*c, openai.WithLogger(a.logger), openai.WithGetenv(a.getenv))
		if err != nil {
			return fail(err)
		}
		out.Provider, out.Model, out.MaxTokens = prov, c.Model, c.MaxTokens
		a.providers = append(a.providers, p.ID)
	case *builtin.Config:
		if a.builtinEntries++; a.builtinEntries > 1 {
			return fmt.Errorf("%s: entry %q: a second hooks/builtin entry; keep one", p.Source, p.ID)
		}
		if err := registerBuiltins(a.batch, c, out, a.stateDir, a.user, a.logger); err != nil {
			return fail(err)
		}
	case *claude.Config:
		cc := *c
		cc.Path = resolveRelative(cc.Path, p.Source)
		b := claude.New(cc, claude.Options{Logger: a.logger, Name: p.ID, Priority: bridgePriority, Trust: trust.Open(a.stateDir), Version: currentVersion(), EnvPolicy: out.EnvPolicy, Plugins: pluginHooks(a.plugins),
			Managed: a.user.managedSettingsFiles, ManagedOnly: a.user.managedHooksOnly})
		b.Register(a.batch)
		a.doctors = append(a.doctors, b.Doctor)
	case *codex.Config:
		cc := *c
		cc.Path = resolveRelative(cc.Path, p.Source)
		b := codex.New(cc, codex.Options{Logger: a.logger, Name: p.ID, Priority: bridgePriority, Trust: trust.Open(a.stateDir), EnvPolicy: out.EnvPolicy,
			Version: currentVersion(), ModelProvider: providerName(out), ManagedOnly: a.user.managedHooksOnly})
		b.Register(a.batch)
		a.doctors = append(a.doctors, b.Doctor)
	default:
		return fmt.Errorf("%s: entry %q: plugin %s is registered but not wired", p.Source, p.ID, p.Name)
	}
	return nil
}

// agent applies the agent entry: the loop's own settings.
func (a *assembly) agent(p config.Plugin, c *agentConfig) error {
	out := a.out
	out.Models = c.Models
	out.DefaultMode = c.DefaultMode
	out.MaxTurnRequests = c.MaxTurnRequests
	out.MaxStopBlocks = c.MaxStopBlocks
	out.MaxSubagentDepth = c.MaxSubagentDepth
	out.ContextWindow = c.ContextWindow
	out.SystemPrompt = c.SystemPrompt
	for _, d := range c.ExtraDirectories {
		if !filepath.IsAbs(d) {
			return fmt.Errorf("%s: entry %q: extraDirectories must be absolute, got %q", p.Source, p.ID, d)
		}
	}
	out.ExtraDirectories = c.ExtraDirectories
	if c.Sandbox != nil {
		block, err := json.Marshal(c.Sandbox)
		if err != nil {
			return err
		}
		a.sandbox, a.sandboxFrom = block, fmt.Sprintf("%s (agent.sandbox)", p.Source)
	}
	web, err := c.WebFetch.options(fmt.Sprintf("%s: entry %q", p.Source, p.ID))
	if err != nil {
		return err
	}
	out.Web = web
	for _, d := range []struct {
		field, value string
		into         *time.Duration
	}{{"mcpStartTimeout", c.MCPStartTimeout, &out.MCP.HandshakeTimeout}, {"mcpCallTimeout", c.MCPCallTimeout, &out.MCP.CallTimeout}, {"sessionStartTimeout", c.SessionStartTimeout, &out.SessionStartTimeout},
		{"permissionNotifyAfter", c.PermissionNotifyAfter, &out.PermissionNotifyAfter}, {"idleNotifyAfter", c.IdleNotifyAfter, &out.IdleNotifyAfter}} {
		if d.value == "" {
			continue
		}
		v, err := time.ParseDuration(d.value)
		if err != nil || v <= 0 {
			return fmt.Errorf("%s: entry %q: %s: want a positive duration like 30s, got %q", p.Source, p.ID, d.field, d.value)
		}
		*d.into = v
	}
	return nil
}

// providerName names cfg's model provider once it is assembled (a
// bridge entry may come before the provider's).
func providerName(cfg *loop.Config) func() string {
	return func() string {
		if cfg.Provider == nil {
			return ""
		}
		return cfg.Provider.Name()
	}
}

// modelTable is the built-in model table with the agent entries'
// modelTable overrides.
func modelTable(cfg *config.Config) (*llm.ModelTable, error) {
	overrides := map[string]llm.ModelSpec{}
	source := ""
	for _, p := range cfg.Enabled() {
		if c, ok := p.Config.(*agentConfig); ok {
			for name, spec := range c.ModelTable {
				overrides[name] = spec
			}
			if len(c.ModelTable) > 0 {
				source = fmt.Sprintf("%s: entry %q: ", p.Source, p.ID)
			}
		}
	}
	table, err := llm.NewModelTable(overrides)
	if err != nil {
		return nil, fmt.Errorf("%s%v", source, err)
	}
	return table, nil
}

// exposedEnv is the user's agent.exposeEnv: key variables to pass to
// subprocesses after all.
func exposedEnv(cfg *config.Config) []string {
	var names []string
	for _, p := range cfg.Enabled() {
		if c, ok := p.Config.(*agentConfig); ok {
			names = append(names, c.ExposeEnv...)
		}
	}
	return names
}

// registerNotice shows text to the user once at the start of each session
// (SessionStart runs again on /clear and compaction; the notice does not).
func registerNotice(r hooks.Registrar, name, text string) {
	var shown sync.Map // session id → true
	r.Register(hooks.SessionStart, hooks.Func(name, func(_ context.Context, in *hooks.Input) (hooks.Decision, error) {
		if _, seen := shown.LoadOrStore(in.SessionID, true); seen {
			return hooks.Decision{}, nil
		}
		return hooks.Decision{SystemMessages: []string{text}}, nil
	}), hooks.RegisterOptions{Priority: 1})
}

// registerBuiltins registers the built-in hooks and wires their /status
// lines.
func registerBuiltins(r hooks.Registrar, c *builtin.Config, out *loop.Config, stateDir string, user userSetup, logger *slog.Logger) error {
	opts := builtin.Options{StateDir: stateDir, Home: user.home, Logger: logger}
	wirePermissionRules(&opts, out, stateDir, user)
	set, err := builtin.Register(r, c, opts)
	if err != nil {
		return err
	}
	out.Status = set.Status
	if set.Metrics != nil {
		out.RestoreToolStats = func(sessionID string, stats []loop.ToolStats) {
			restored := make([]builtin.ToolStats, len(stats))
			for i, st := range stats {
				restored[i] = builtin.ToolStats(st)
			}
			set.Metrics.Restore(sessionID, restored)
		}
	}
	return nil
}

// bridgePriority places the dialect bridges after the built-in hooks
// (10..90) in every seam's pipeline.
const bridgePriority = 100

// resolveRelative resolves a relative path from a plugin's config against
// the directory of the config file that defined the entry (source is
// "file:line"); the embedded default has no file and leaves it as is.
func resolveRelative(path, source string) string {
	if path == "" || filepath.IsAbs(path) || source == config.EmbeddedSource {
		return path
	}
	file := source
	if i := strings.LastIndexByte(file, ':'); i > 0 {
		file = file[:i]
	}
	return filepath.Join(filepath.Dir(file), path)
}

// hasPlugin reports whether the config has an entry of the plugin, enabled
// or not.
func hasPlugin(cfg *config.Config, name string) bool {
	for _, p := range cfg.Plugins {
		if p.Name == name {
			return true
		}
	}
	return false
}

// configReport is the config part of /doctor.
func configReport(cfg *config.Config) []string {
	var lines []string
	if len(cfg.Files) == 0 {
		lines = append(lines, "✓ config: the built-in default (no cordis.yml found)")
	}
	for _, f := range cfg.Files {
		lines = append(lines, "✓ config file "+f)
	}
	for _, w := range cfg.Warnings {
		lines = append(lines, "✗ config: "+w)
	}
	return lines
}
