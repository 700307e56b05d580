package loop

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/internal/printable"
	"github.com/cordis-agent/cordis/internal/proc"
	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/loop/commands"
	"github.com/cordis-agent/cordis/loop/mcp"
	"github.com/cordis-agent/cordis/loop/tools"
	"github.com/cordis-agent/cordis/sessionlog"
)

// Config is everything the agent needs; cmd/cordis assembles it from
// cordis.yml.
type Config struct {
	Provider llm.Provider
	// Model is the default model; Models are the choices offered in the
	// model config option (Model is added when missing).
	Model  string
	Models []string
	// MaxTokens caps each model response; 0 leaves it to the provider
	// (Anthropic's default, or none for an OpenAI-compatible server).
	MaxTokens int
	// ThinkingBudget > 0 asks for extended thinking.
	ThinkingBudget int

	// StateDir holds sessions/<id>.jsonl.
	StateDir string
	// Hooks is every seam the loop calls (in cordis, the hooks.Pipeline
	// the built-ins and bridges register on); nil runs none. Project
	// instructions (AGENTS.md, CLAUDE.md) come from a SessionStart hook,
	// the built-in context-injector.
	Hooks hooks.Seams
	Tools []tools.Tool
	// SystemPrompt replaces the built-in base prompt when set.
	SystemPrompt string
	// ExtraDirectories are absolute directories tools may touch besides
	// the session cwd.
	ExtraDirectories []string

	// MaxTurnRequests caps model requests per prompt turn.
	MaxTurnRequests int
	// MaxStopBlocks caps consecutive Stop/SubagentStop blocks.
	MaxStopBlocks int
	// MaxSubagentDepth caps Task nesting (1: subagents cannot spawn more).
	MaxSubagentDepth int
	// ContextWindow, when set, caps every model's context window (the
	// model table gives each model's own): usage_update's size and the
	// point where a turn compacts.
	ContextWindow int
	// ModelTable is what cordis knows of each model: window, output
	// limit, prices (nil: llm.Models(), the process's table).
	ModelTable *llm.ModelTable
	// DefaultMode is the permission mode new sessions start in.
	DefaultMode string
	// SessionSettings, when set, is what the user's and the project's
	// settings say for a session in cwd (cmd/cordis: Claude Code's
	// settings files and managed policy): its mode, extra directories,
	// whether bypassPermissions is forbidden. Asked once per session.
	SessionSettings func(cwd string) SessionSettings
	// SessionStartTimeout bounds how long SessionStart hooks may hold
	// session/new and session/load (the editor cannot cancel them: it has
	// no session id yet); hooks still running are stopped and the editor
	// is told (default 10s).
	SessionStartTimeout time.Duration

	// Status adds lines to /status (hook metrics, budget); Doctor adds
	// checks to /doctor (config files, hook files, trust). Both may be nil.
	Status func(sessionID string) []string
	Doctor func(cwd string) []string
	// RestoreToolStats, when set, is handed the tool calls a reopened
	// session's log holds, per tool, so the counters /status shows
	// through Status (the metrics hook's) go on from where the last
	// process left them instead of starting at zero.
	RestoreToolStats func(sessionID string, stats []ToolStats)
	// Sources are the folders of slash commands, skills and custom
	// subagents (cmd/cordis: cordis's own and Claude Code's); the zero
	// value reads none.
	Sources commands.Sources
	// Home is the user's home directory, shown as ~ in /help's list of
	// command folders ("": os.UserHomeDir).
	Home string
	// MCP tunes the editor's MCP servers (timeouts); the zero value uses
	// the defaults of package mcp.
	MCP mcp.Options
	// SetupMCP, when set, returns the MCP servers the user's setup
	// configures for a session in cwd (cmd/cordis: the user's own, a
	// project's the user approved, the plugins'), each with its Origin,
	// and notices for the user (servers waiting for approval, files with
	// problems). They join the editor's servers; the editor's win a name
	// clash, and the editor is told.
	SetupMCP func(cwd string) (servers []mcp.Spec, notices []string)
	// MCPPolicy, when set, is an administrator's say over the editor's
	// MCP servers: it returns why one may not start ("" when it may).
	// Such a server is left out and the editor told. (SetupMCP applies
	// the same policy to the setup's servers itself.)
	MCPPolicy func(mcp.Spec) string
	// Web tunes WebFetch (nil: its defaults, which refuse loopback and
	// private addresses).
	Web *tools.WebOptions
	// EnvPolicy decides what of cordis's environment commands, snippets and
	// MCP servers inherit (nil: proc.DefaultEnvPolicy, which hides the
	// provider keys).
	EnvPolicy *proc.EnvPolicy
	// SavePermissionRule keeps an "Always allow" answer beyond the
	// session: it saves rule as an allow rule of the project at projectDir
	// and records that the user vouched for it, so that the permission
	// rules hook honours it later (cmd/cordis: permrules.Trust.SaveAllow).
	// nil: such answers hold for the session only, and say so.
	SavePermissionRule func(projectDir, rule string) error
	// PermissionNotifyAfter and IdleNotifyAfter are how long a permission
	// request waits unanswered, and the agent waits for a new prompt after
	// a turn, before the Notification seam runs (permission_prompt,
	// idle_prompt); 0 takes Claude Code's 6 s and 60 s, negative never.
	PermissionNotifyAfter time.Duration
	IdleNotifyAfter       time.Duration

	// ConfigError, when set, is why the configuration could not be
	// loaded: the agent still answers initialize (an editor shows a
	// crash before it as a dead agent), then refuses every session with
	// this message, which names the file, line and field.
	ConfigError error
	// KeyEnv names the variable holding the provider's key ("": the
	// provider takes none); it is also the id of the auth method that
	// uses it, which acpx maps to that variable.
	KeyEnv string
	// Login, when set, is offered as a terminal login (`cordis login`)
	// and makes logout available.
	Login *LoginMethod

	Version string
	Logger  *slog.Logger
	Now     func() time.Time
}

// LoginMethod is how the user stores a key for cordis from a terminal.
type LoginMethod struct {
	// Command and Args start the login (the legacy
	// `_meta["terminal-auth"]` form names the whole command line; the
	// typed terminal method appends "login" to the agent's own).
	Command string
	Args    []string
	// Logout removes the stored key.
	Logout func() error
	// Store, when set, stores a key the user gave through a form (the
	// editor's elicitation), where `cordis login` stores it; Where says
	// where, for the form.
	Store func(key string) error
	Where string
}

func (c *Config) setDefaults() {
	if c.Hooks == nil {
		c.Hooks = hooks.None{}
	}
	if c.Tools == nil {
		c.Tools = tools.Builtin()
	}
	if c.MaxTurnRequests == 0 {
		c.MaxTurnRequests = 100
	}
	if c.MaxStopBlocks == 0 {
		c.MaxStopBlocks = 8
	}
	if c.MaxSubagentDepth == 0 {
		c.MaxSubagentDepth = 1
	}
	if c.PermissionNotifyAfter == 0 {
		c.PermissionNotifyAfter = defaultPermissionNotifyAfter
	}
	if c.IdleNotifyAfter == 0 {
		c.IdleNotifyAfter = defaultIdleNotifyAfter
	}
	if c.SessionStartTimeout == 0 {
		c.SessionStartTimeout = 10 * time.Second
	}
	if c.DefaultMode == "" {
		c.DefaultMode = ModeDefault
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if !slices.Contains(c.Models, c.Model) {
		c.Models = append([]string{c.Model}, c.Models...)
	}
}

// Agent implements acp.Agent: it owns the sessions of one connection.
type Agent struct {
	cfg      Config
	client   *acp.Client
	log      *slog.Logger
	commands *commands.Registry

	mu       sync.Mutex
	sessions map[string]*Session
}

// New returns the constructor acp.Serve expects.
func New(cfg Config) func(*acp.Client) acp.Agent {
	cfg.setDefaults()
	if cfg.Home == "" {
		cfg.Home, _ = os.UserHomeDir()
	}
	return func(c *acp.Client) acp.Agent {
		reg := commands.NewRegistry(builtinCommands(), cfg.Sources)
		return &Agent{cfg: cfg, client: c, log: cfg.Logger, sessions: map[string]*Session{}, commands: reg}
	}
}

func (a *Agent) Initialize(ctx context.Context, req *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	resp := &acp.InitializeResponse{
		ProtocolVersion: acp.ProtocolVersion,
		AgentCapabilities: acp.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: acp.PromptCapabilities{Image: true, EmbeddedContext: true},
			MCPCapabilities:    acp.MCPCapabilities{HTTP: true, SSE: true},
			SessionCapabilities: acp.SessionCapabilities{
				List:                  &acp.Supported{},
				Close:                 &acp.Supported{},
				Resume:                &acp.Supported{},
				Delete:                &acp.Supported{},
				AdditionalDirectories: &acp.Supported{},
				Fork:                  &acp.Supported{},
			},
		},
		AuthMethods: a.authMethods(req.ClientCapabilities),
		AgentInfo:   &acp.Implementation{Name: "cordis", Title: "cordis", Version: a.cfg.Version},
	}
	if len(resp.AuthMethods) > 0 && a.cfg.Login != nil {
		resp.AgentCapabilities.Auth = &acp.AgentAuthCapabilities{Logout: &acp.Supported{}}
	}
	return resp, nil
}

// loginMethodID is the terminal login's auth method.
const loginMethodID = "cordis-login"

// authMethods are the ways to give cordis its key, for a provider that
// takes one: the variable itself (its name is the id, which acpx maps to
// that variable), and `cordis login` for clients that run terminal
// logins, in the typed form and in the `_meta["terminal-auth"]` form Zed
// reads.
func (a *Agent) authMethods(caps acp.ClientCapabilities) []acp.AuthMethod {
	env := a.keyEnv()
	if env == "" {
		return []acp.AuthMethod{}
	}
	methods := []acp.AuthMethod{{
		ID:          env,
		Name:        env,
		Description: fmt.Sprintf("Use the model API key in the %s environment variable, or the one `cordis login` stored.", env),
	}}
	if login := a.cfg.Login; login != nil && login.Store != nil && caps.ElicitationForm() {
		methods[0].Description += " Without one, cordis asks for it in a form and stores it the same way."
	}
	if login := a.cfg.Login; login != nil && caps.TerminalAuth() {
		m := acp.AuthMethod{
			ID:          loginMethodID,
			Name:        "Log in with an API key",
			Description: fmt.Sprintf("Runs `cordis login` in a terminal: it asks for your %s and stores it for cordis (mode 0600, never logged).", env),
			Meta:        acp.Meta{"terminal-auth": map[string]any{"label": "cordis login", "command": login.Command, "args": login.Args}},
		}
		if caps.Auth != nil && caps.Auth.Terminal {
			m.Type, m.Args = "terminal", []string{"login"}
		}
		methods = append(methods, m)
	}
	return methods
}

// keyEnv names the provider's key variable: the configured one, else
// the one a provider without its key reports.
func (a *Agent) keyEnv() string {
	if a.cfg.KeyEnv != "" {
		return a.cfg.KeyEnv
	}
	if cc, ok := a.cfg.Provider.(llm.CredentialChecker); ok {
		if e, ok := errors.AsType[*llm.Error](cc.CheckCredentials()); ok {
			return e.KeyEnv
		}
	}
	return ""
}

func (a *Agent) authError() error {
	cc, ok := a.cfg.Provider.(llm.CredentialChecker)
	if !ok {
		return nil
	}
	if err := cc.CheckCredentials(); err != nil {
		msg := err.Error()
		if a.cfg.Login != nil {
			msg += ", or run `cordis login` in a terminal to store one"
		}
		return acp.AuthRequired(msg)
	}
	return nil
}

// Authenticate succeeds once a key is present (the environment, or what
// `cordis login` stored): every method ends with the key in one of them.
// Without one, a client that takes form elicitations is asked for it
// (askForKey).
func (a *Agent) Authenticate(ctx context.Context, req *acp.AuthenticateRequest) error {
	return a.sessionError(ctx)
}

// Logout removes the key `cordis login` stored; a key in the environment
// stays (cordis cannot unset its editor's variables).
func (a *Agent) Logout(ctx context.Context) error {
	if a.cfg.Login == nil || a.cfg.Login.Logout == nil {
		return acp.InvalidRequest("cordis has no stored key to remove")
	}
	if err := a.cfg.Login.Logout(); err != nil {
		return acp.InternalError("removing the stored key: %v", err)
	}
	return nil
}

// configError is the answer to session requests while the configuration
// is broken.
func (a *Agent) configError() error {
	return acp.InvalidRequest("cordis cannot start a session: its configuration is broken: %v. Fix it, then restart the agent.", a.cfg.ConfigError)
}

// sessionError is why no session can start now (a broken configuration,
// a missing key), or nil. A missing key is asked for first where the
// client takes form elicitations (askForKey).
func (a *Agent) sessionError(ctx context.Context) error {
	if a.cfg.ConfigError != nil {
		return a.configError()
	}
	err := a.authError()
	if err != nil {
		err = a.askForKey(ctx, err)
	}
	return err
}

func (a *Agent) NewSession(ctx context.Context, req *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	if err := a.sessionError(ctx); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(req.Cwd); err != nil || !fi.IsDir() {
		return nil, acp.InvalidParams("field \"cwd\": %q is not a directory", req.Cwd)
	}
	id := sessionlog.NewID()
	s, err := a.createSession(id, req.Cwd, req.AdditionalDirectories)
	if err != nil {
		return nil, acp.InternalError("creating session: %v", err)
	}
	s.startMCP(ctx, req.MCPServers)
	s.queueSessionStart(ctx, "startup")
	return &acp.NewSessionResponse{SessionID: id, Modes: s.modeState(), ConfigOptions: s.configOptions()}, nil
}

// createSession starts a new session's log with its session/start event.
// A log that cannot take that first event is removed again, so that a
// failed session/new leaves no empty log behind.
func (a *Agent) createSession(id, cwd string, extra []string) (*Session, error) {
	path := sessionlog.Path(a.cfg.StateDir, id)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	w, err := sessionlog.Create(path, sessionlog.WithClock(a.cfg.Now))
	if err != nil {
		return nil, err
	}
	s := a.newSession(id, cwd, extra, w)
	start := sessionStartEvent{SessionID: id, Cwd: cwd, AdditionalDirectories: extra, Model: s.model, Mode: s.mode}
	if _, err := w.Append(start.logType(), start); err != nil {
		w.Close()
		os.Remove(path)
		return nil, err
	}
	a.register(s)
	// The facts the model is told (git's among them) are gathered while
	// the user types the first prompt.
	go s.facts()
	return s, nil
}

// newSession makes the session of a log opened for appending.
func (a *Agent) newSession(id, cwd string, extra []string, w *sessionlog.Writer) *Session {
	var set SessionSettings
	if a.cfg.SessionSettings != nil {
		set = a.cfg.SessionSettings(cwd)
	}
	roots := append([]string{cwd}, extra...)
	roots = append(roots, a.cfg.ExtraDirectories...)
	// The settings' additionalDirectories, confined like the editor's.
	roots = append(roots, set.Directories...)
	// A user skill's scripts and references.
	roots = append(roots, a.commands.UserSkillDirs()...)
	// A skill's found above the cwd, up to the repository's root.
	roots = append(roots, a.commands.SkillDirsAbove(cwd)...)
	// A plugin's files, which its skills and agents name through
	// ${CLAUDE_PLUGIN_ROOT}.
	roots = append(roots, a.commands.BundleRoots(cwd)...)
	s := &Session{
		agent: a, id: id, cwd: cwd, roots: roots, log: w, logPath: w.Path(),
		mode: cmp.Or(set.Mode, a.cfg.DefaultMode), model: a.cfg.Model, background: tools.NewBackground(),
		settings: set, startupNotices: slices.Clone(set.Notices),
		usage: usageMeter{priceOf: a.priceOf},
	}
	s.mode = s.allowedMode(s.mode)
	s.late = newLateHooks(s)
	return s
}

// register makes s the open session of its id.
func (a *Agent) register(s *Session) {
	a.mu.Lock()
	old := a.sessions[s.id]
	a.sessions[s.id] = s
	a.mu.Unlock()
	if old != nil {
		old.close()
	}
}

// closeOpen closes the session of id if this agent has it open, releasing
// its log (a log has one writer at a time, this process included).
func (a *Agent) closeOpen(id string) {
	a.mu.Lock()
	old := a.sessions[id]
	delete(a.sessions, id)
	a.mu.Unlock()
	if old != nil {
		old.close()
	}
}

func (a *Agent) session(id string) (*Session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.sessions[id]
	if s == nil {
		return nil, acp.SessionNotFound(id)
	}
	return s, nil
}

func (a *Agent) SessionOpened(ctx context.Context, sessionID string) {
	s, err := a.session(sessionID)
	if err != nil {
		return
	}
	s.notify(ctx, acp.AvailableCommandsUpdate{AvailableCommands: s.availableCommands()})
	s.notify(ctx, acp.ConfigOptionUpdate{ConfigOptions: s.configOptions()})
	s.sayStartupNotices(ctx)
	s.reportMCPFailures(ctx, false)
	s.reportRestoredUsage(ctx)
}

func (a *Agent) ListSessions(ctx context.Context, req *acp.ListSessionsRequest) (*acp.ListSessionsResponse, error) {
	list, err := sessionlog.List(a.cfg.StateDir)
	if err != nil {
		return nil, acp.InternalError("listing sessions: %v", err)
	}
	if req.Cwd != "" {
		list = slices.DeleteFunc(list, func(s sessionlog.Summary) bool { return s.Cwd != req.Cwd })
	}
	page, next, err := listPage(list, req.Cursor)
	if err != nil {
		return nil, err
	}
	resp := &acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}, NextCursor: next}
	for _, s := range page {
		info := acp.SessionInfo{SessionID: s.SessionID, Cwd: s.Cwd, AdditionalDirectories: s.AdditionalDirectories,
			Title: printable.Line(cmp.Or(a.savedTitle(s.SessionID), s.Title))} // the model's words (shown.go)
		if !s.UpdatedAt.IsZero() {
			info.UpdatedAt = s.UpdatedAt.UTC().Format(time.RFC3339)
		}
		resp.Sessions = append(resp.Sessions, info)
	}
	return resp, nil
}

func (a *Agent) CloseSession(ctx context.Context, req *acp.CloseSessionRequest) error {
	a.mu.Lock()
	s := a.sessions[req.SessionID]
	delete(a.sessions, req.SessionID)
	a.mu.Unlock()
	if s == nil {
		return acp.SessionNotFound(req.SessionID)
	}
	s.end(ctx, "other")
	return nil
}

// DeleteSession ends the session if it is open (its SessionEnd hooks run
// and its MCP servers stop) and removes its log, its transcript and its
// subagents' logs, so that session/list no longer shows it.
func (a *Agent) DeleteSession(ctx context.Context, req *acp.DeleteSessionRequest) error {
	if !sessionlog.ValidID(req.SessionID) {
		return acp.SessionNotFound(req.SessionID)
	}
	a.mu.Lock()
	s := a.sessions[req.SessionID]
	delete(a.sessions, req.SessionID)
	a.mu.Unlock()
	if s != nil {
		s.end(ctx, "other")
	}
	path := sessionlog.Path(a.cfg.StateDir, req.SessionID)
	err := os.Remove(path)
	if errors.Is(err, fs.ErrNotExist) && s == nil {
		return acp.SessionNotFound(req.SessionID)
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return acp.InternalError("deleting session %s: %v", req.SessionID, err)
	}
	os.Remove(titlePath(a.cfg.StateDir, req.SessionID))
	// <id>/ holds the transcript and the subagents' logs.
	if err := os.RemoveAll(strings.TrimSuffix(path, ".jsonl")); err != nil {
		return acp.InternalError("deleting session %s: %v", req.SessionID, err)
	}
	return nil
}

func (a *Agent) SetSessionMode(ctx context.Context, req *acp.SetSessionModeRequest) error {
	s, err := a.session(req.SessionID)
	if err != nil {
		return err
	}
	if err := s.setMode(req.ModeID); err != nil {
		return err
	}
	s.notify(ctx, acp.CurrentModeUpdate{CurrentModeID: req.ModeID})
	s.notify(ctx, acp.ConfigOptionUpdate{ConfigOptions: s.configOptions()})
	return nil
}

func (a *Agent) SetSessionConfigOption(ctx context.Context, req *acp.SetSessionConfigOptionRequest) (*acp.SetSessionConfigOptionResponse, error) {
	s, err := a.session(req.SessionID)
	if err != nil {
		return nil, err
	}
	var value string
	if req.Type == "boolean" || unmarshalString(req.Value, &value) != nil {
		return nil, acp.InvalidParams("field \"value\" must be one of the option's values (a string)")
	}
	switch req.ConfigID {
	case configMode:
		if err := s.setMode(value); err != nil {
			return nil, err
		}
		s.notify(ctx, acp.CurrentModeUpdate{CurrentModeID: value})
	case configModel:
		if !slices.Contains(a.cfg.Models, value) {
			return nil, acp.InvalidParams("field \"value\": unknown model %q (valid: %s)", value, strings.Join(a.cfg.Models, ", "))
		}
		s.mu.Lock()
		s.model = value
		s.mu.Unlock()
		s.record(configChangeEvent{ConfigID: configModel, Value: value})
		s.reportWindow(ctx)
	default:
		return nil, acp.InvalidParams("field \"configId\": unknown config option %q (valid: %s, %s)", req.ConfigID, configMode, configModel)
	}
	return &acp.SetSessionConfigOptionResponse{ConfigOptions: s.configOptions()}, nil
}

func (a *Agent) Prompt(ctx context.Context, req *acp.PromptRequest) (*acp.PromptResponse, error) {
	s, err := a.session(req.SessionID)
	if err != nil {
		return nil, err
	}
	if err := a.authError(); err != nil {
		return nil, err
	}
	if err := s.checkLog(); err != nil {
		return nil, err
	}
	ctx, stop := s.logHealth.watch(ctx)
	defer stop()
	before := s.usage.tokensByKind()
	reason, err := s.prompt(ctx, req.Prompt)
	if failed := s.logHealth.failure(); failed != nil {
		return nil, unsavedError(s.id, failed)
	}
	if err != nil {
		return nil, err
	}
	s.titleAfterFirstTurn(ctx, req.Prompt)
	return &acp.PromptResponse{StopReason: reason, Usage: turnUsage(before, s.usage.tokensByKind())}, nil
}

func (a *Agent) Shutdown(ctx context.Context) {
	a.mu.Lock()
	sessions := make([]*Session, 0, len(a.sessions))
	for _, s := range a.sessions {
		sessions = append(sessions, s)
	}
	a.sessions = map[string]*Session{}
	a.mu.Unlock()
	slices.SortFunc(sessions, func(x, y *Session) int { return strings.Compare(x.id, y.id) })
	for _, s := range sessions {
		s.end(ctx, "prompt_input_exit")
	}
}
