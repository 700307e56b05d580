package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/loop/commands"
	"github.com/cordis-agent/cordis/loop/mcp"
	"github.com/cordis-agent/cordis/loop/tools"
	"github.com/cordis-agent/cordis/sessionlog"
)

// Permission modes, after Claude Code's.
const (
	ModeDefault     = "default"
	ModeAcceptEdits = "acceptEdits"
	ModePlan        = "plan"
	ModeBypass      = "bypassPermissions"
)

// Config option ids.
const (
	configMode  = "mode"
	configModel = "model"
)

var modes = []acp.SessionMode{
	{ID: ModeDefault, Name: "Default", Description: "Ask before editing files or running commands"},
	{ID: ModeAcceptEdits, Name: "Accept Edits", Description: "Edit files without asking; ask before running commands"},
	{ID: ModePlan, Name: "Plan", Description: "Read-only: explore and plan, change nothing"},
	{ID: ModeBypass, Name: "Bypass Permissions", Description: "Run every tool without asking"},
}

// Session is one conversation. Its turns are serialised by the acp
// server (one prompt at a time per session); mu guards the fields that
// set_mode / set_config_option change while a turn runs.
type Session struct {
	agent   *Agent
	id      string
	cwd     string
	roots   []string
	log     *sessionlog.Writer
	logPath string

	// grants are the current turn's pre-approved rules (allowed-tools).
	grants turnGrants
	// shellEnv is the kept CLAUDE_ENV_FILE script ("" for none; s.mu).
	shellEnv string

	mu      sync.Mutex
	mode    string
	model   string
	history []llm.Message
	// pendingContext is SessionStart context waiting for the next model
	// request; it is placed there, never raced in from a goroutine.
	pendingContext []string
	// systemContext is what the last SessionStart gave for the system
	// prompt (the context-injector's AGENTS.md / CLAUDE.md): every request
	// of the session carries it, so the prompt stays stable and cacheable.
	systemContext []string
	turnSeq       int
	closed        bool
	// title is the thread's title; titled is set once the first prompt
	// was titled (or renamed), so later prompts do not retitle it.
	title  string
	titled bool
	// running counts model turns in progress (slash commands may run
	// alongside one).
	running int
	// compactWanted is set when a hook (the context monitor) asks for
	// compaction; the turn compacts when it ends.
	compactWanted bool
	// ctxBase is where the estimate of the next request's size starts
	// (compact.go); compactions numbers the session's compactions.
	ctxBase     contextBase
	compactions int
	advertised  *commands.Set
	// mcp owns the session's MCP servers (nil without any);
	// advertisedMCP is the generation of MCP prompt commands last
	// advertised.
	mcp           *mcp.Manager
	advertisedMCP uint64

	// background owns the session's background shell tasks; they are
	// killed when the session closes.
	background *tools.Background
	// late owns the session's background (async) hooks and queues what
	// they report for the next model request (latehooks.go).
	late *lateHooks

	// stopIdle stops the pending idle_prompt notification (notify.go).
	stopIdle func()

	// usage is the session's bill, and answers its "always" answers, each
	// under its own lock.
	usage   usageMeter
	answers alwaysAnswers
	// startupNotices are told the editor once session/new or load has
	// been answered (a session/update before that names an unknown id).
	startupNotices []string
	// logHealth says whether the log still takes appends (a full disk
	// stops the session's turns).
	logHealth logHealth
	// settings are what the settings files said when the session opened.
	settings SessionSettings
	// net is the sandbox's proxy and the user's answers about hosts.
	net netAccess
	// factsOnce gathers envFacts, what the model is told of the machine
	// and the project, once per session (envfacts.go).
	factsOnce sync.Once
	envFacts  *envFacts
}

// SessionSettings are what the user's and the project's settings (and an
// administrator's policy) say for one session; see Config.SessionSettings.
type SessionSettings struct {
	// Mode is the permission mode the session starts in ("":
	// Config.DefaultMode).
	Mode string
	// Directories are absolute directories the session's tools may use,
	// besides its cwd and the editor's additionalDirectories.
	Directories []string
	// BypassDisabled, when set, says why bypassPermissions is forbidden:
	// it is not offered, and no editor, command or log can switch to it.
	BypassDisabled string
	// NoAlwaysAllow hides the "Always allow" answers (a policy that allows
	// only its own permission rules).
	NoAlwaysAllow bool
	// Notices are told the editor once the session is open.
	Notices []string
	// Sandbox are the session's sandbox settings.
	Sandbox SandboxSettings
}

// availableModes are the modes the session offers: every mode, less
// bypassPermissions when it is forbidden.
func (s *Session) availableModes() []acp.SessionMode {
	if s.settings.BypassDisabled == "" {
		return modes
	}
	out := make([]acp.SessionMode, 0, len(modes))
	for _, m := range modes {
		if m.ID != ModeBypass {
			out = append(out, m)
		}
	}
	return out
}

// allowedMode is mode, or default when mode is forbidden.
func (s *Session) allowedMode(mode string) string {
	if mode == ModeBypass && s.settings.BypassDisabled != "" {
		return ModeDefault
	}
	return mode
}

func (s *Session) modeState() *acp.SessionModeState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return &acp.SessionModeState{CurrentModeID: s.mode, AvailableModes: s.availableModes()}
}

func (s *Session) configOptions() []acp.ConfigOption {
	s.mu.Lock()
	mode, model := s.mode, s.model
	s.mu.Unlock()
	available := s.availableModes()
	modeOpts := make([]acp.ConfigSelectOption, len(available))
	for i, m := range available {
		modeOpts[i] = acp.ConfigSelectOption{Value: m.ID, Name: m.Name, Description: m.Description}
	}
	modelOpts := make([]acp.ConfigSelectOption, len(s.agent.cfg.Models))
	for i, m := range s.agent.cfg.Models {
		modelOpts[i] = acp.ConfigSelectOption{Value: m, Name: m}
	}
	return []acp.ConfigOption{
		{ID: configMode, Name: "Mode", Description: "When cordis asks before using a tool", Category: "mode", Type: "select", CurrentValue: mode, Options: modeOpts},
		{ID: configModel, Name: "Model", Category: "model", Type: "select", CurrentValue: model, Options: modelOpts},
	}
}

func (s *Session) setMode(mode string) error {
	if mode == ModeBypass && s.settings.BypassDisabled != "" {
		return acp.InvalidParams("mode %s is disabled: %s", ModeBypass, s.settings.BypassDisabled)
	}
	valid := make([]string, len(modes))
	for i, m := range modes {
		valid[i] = m.ID
		if m.ID == mode {
			s.mu.Lock()
			s.mode = mode
			s.mu.Unlock()
			s.record(modeChangeEvent{Mode: mode})
			return nil
		}
	}
	return acp.InvalidParams("unknown mode %q (valid: %s)", mode, strings.Join(valid, ", "))
}

// notify sends a session/update, what it shows escaped (shown.go); a
// failure (the editor went away) is logged, never fatal to the turn.
func (s *Session) notify(ctx context.Context, u acp.SessionUpdate) {
	if err := s.agent.client.SessionUpdate(ctx, s.id, shownUpdate(u)); err != nil {
		s.agent.log.Warn("session/update failed", "session", s.id, "error", err)
	}
}

// record appends an event to the session log. A failed append stops the
// session's turns (logHealth): the editor is told, nothing runs unrecorded.
func (s *Session) record(ev logEvent) { s.recordRaw(ev.logType(), ev) }

// recordRaw appends data as an event of type typ: for the events hooks
// record through hooks.Input.Record.
func (s *Session) recordRaw(typ string, data any) {
	if _, err := s.log.Append(typ, data); err != nil {
		s.logFailed(typ, err)
	}
}

// queueSessionStart runs the SessionStart seam and keeps its context for
// the next model request, and its system context for every request.
//
// The hooks hold the editor's session/new (or load), which it cannot
// cancel, so they get SessionStartTimeout; past it they are stopped, and
// the editor is told once the session is open (sayStartupNotices).
func (s *Session) queueSessionStart(ctx context.Context, source string) {
	limit := s.agent.cfg.SessionStartTimeout
	hctx, cancel := context.WithTimeout(ctx, limit)
	d := s.runHook(hctx, &hooks.Input{Event: hooks.SessionStart, Source: source})
	timedOut := errors.Is(hctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	cancel()
	if timedOut {
		msg := fmt.Sprintf("SessionStart hooks did not finish within %s (agent.sessionStartTimeout) and were stopped; what they had not given yet (context, instructions) is missing from this session.", limit)
		s.record(sessionStartSkippedNotice{Kind: "sessionStartSkipped", Message: msg})
		s.mu.Lock()
		s.startupNotices = append(s.startupNotices, msg)
		s.mu.Unlock()
	}
	s.mu.Lock()
	s.pendingContext = append(s.pendingContext, d.AdditionalContext...)
	s.systemContext = d.SystemContext
	s.mu.Unlock()
	s.keepShellEnv(d.ShellEnv)
	s.showSystemMessages(ctx, d)
}

// sayStartupNotices shows what went wrong while the session opened.
func (s *Session) sayStartupNotices(ctx context.Context) {
	s.mu.Lock()
	notices := s.startupNotices
	s.startupNotices = nil
	s.mu.Unlock()
	for _, n := range notices {
		s.notify(ctx, acp.AgentMessageChunk{Content: acp.TextBlock("[cordis: " + n + "]\n\n")})
	}
}

// systemPrompt returns the system prompt blocks of a (sub)agent: its base
// prompt, the environment, then the session's system context.
func (s *Session) systemPrompt(base string) []string {
	facts := s.facts()
	s.mu.Lock()
	defer s.mu.Unlock()
	system := []string{base, environmentPrompt(s.cwd, s.roots), facts.prompt(s.model)}
	return append(system, s.systemContext...)
}

// runHook fills the common input fields and runs a seam. Hook runs are
// recorded in the session log unless the caller set in.Record (a subagent
// records into its own log).
func (s *Session) runHook(ctx context.Context, in *hooks.Input) hooks.Decision {
	s.mu.Lock()
	in.SessionID, in.Cwd, in.PermissionMode, in.SessionLogPath = s.id, s.cwd, s.mode, s.logPath
	in.Directories = s.roots
	if in.Model == "" {
		in.Model = s.model
	}
	s.mu.Unlock()
	in.Totals, _ = s.usage.read()
	in.ContextWindow = s.agent.modelInfo(in.Model).ContextWindow
	if in.Record == nil {
		in.Record = s.recordRaw
	}
	if in.Later == nil && s.late != nil {
		in.Later = s.late
	}
	return s.agent.cfg.Hooks.Run(ctx, in)
}

func (s *Session) end(ctx context.Context, reason string) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.mu.Unlock()
	s.runHook(ctx, &hooks.Input{Event: hooks.SessionEnd, Reason: reason})
	s.close()
}

func (s *Session) close() {
	s.disarmIdle()
	// Every MCP server process, background task and background hook of
	// the session is gone when this returns.
	s.late.stop()
	s.mcpManager().Close()
	s.background.StopAll()
	s.closeProxy()
	// The sandbox's temp folder goes with the commands that used it.
	_ = os.RemoveAll(s.sandboxTempPath())
	if err := s.log.Close(); err != nil {
		s.agent.log.Warn("closing session log", "session", s.id, "error", err)
	}
}

func unmarshalString(raw json.RawMessage, out *string) error { return json.Unmarshal(raw, out) }
