package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/loop/commands"
	"github.com/cordis-agent/cordis/loop/llm"
	"github.com/cordis-agent/cordis/loop/sessionlog"
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

	mu           sync.Mutex
	mode         string
	model        string
	allowAlways  map[string]bool // tool name -> remembered allow_always
	rejectAlways map[string]bool
	history      []llm.Message
	// pendingContext is SessionStart context waiting for the next model
	// request; it is placed there, never raced in from a goroutine.
	pendingContext []string
	projectContext *string // AGENTS.md + CLAUDE.md, read once per session
	turnSeq        int
	closed         bool
	// running counts model turns in progress (slash commands may run
	// alongside one).
	running           int
	lastContextTokens int
	advertised        *commands.Set
}

type sessionStartData struct {
	SessionID             string   `json:"sessionId"`
	Cwd                   string   `json:"cwd"`
	AdditionalDirectories []string `json:"additionalDirectories,omitempty"`
	Model                 string   `json:"model"`
	Mode                  string   `json:"mode"`
}

func (s *Session) modeState() *acp.SessionModeState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return &acp.SessionModeState{CurrentModeID: s.mode, AvailableModes: modes}
}

func (s *Session) configOptions() []acp.ConfigOption {
	s.mu.Lock()
	mode, model := s.mode, s.model
	s.mu.Unlock()
	modeOpts := make([]acp.ConfigSelectOption, len(modes))
	for i, m := range modes {
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
	valid := make([]string, len(modes))
	for i, m := range modes {
		valid[i] = m.ID
		if m.ID == mode {
			s.mu.Lock()
			s.mode = mode
			s.mu.Unlock()
			s.record(sessionlog.TypeModeChange, map[string]string{"mode": mode})
			return nil
		}
	}
	return acp.InvalidParams("unknown mode %q (valid: %s)", mode, strings.Join(valid, ", "))
}

// notify sends a session/update; a failure (the editor went away) is
// logged, never fatal to the turn.
func (s *Session) notify(ctx context.Context, u acp.SessionUpdate) {
	if err := s.agent.client.SessionUpdate(ctx, s.id, u); err != nil {
		s.agent.log.Warn("session/update failed", "session", s.id, "error", err)
	}
}

// record appends an event to the session log. A failing disk is reported
// once per event in the agent log; the turn goes on.
func (s *Session) record(typ string, data any) {
	if _, err := s.log.Append(typ, data); err != nil {
		s.agent.log.Error("session log append failed", "session", s.id, "type", typ, "error", err)
	}
}

// queueSessionStart runs the SessionStart seam and keeps its context for
// the next model request.
func (s *Session) queueSessionStart(ctx context.Context, source string) {
	d := s.runHook(ctx, &hooks.Input{Event: hooks.SessionStart, Source: source})
	s.mu.Lock()
	s.pendingContext = append(s.pendingContext, d.AdditionalContext...)
	s.mu.Unlock()
	s.showSystemMessages(ctx, d)
}

// runHook fills the common input fields and runs a seam.
func (s *Session) runHook(ctx context.Context, in *hooks.Input) hooks.Decision {
	s.mu.Lock()
	in.SessionID, in.Cwd, in.PermissionMode, in.TranscriptPath = s.id, s.cwd, s.mode, s.logPath
	if in.Model == "" {
		in.Model = s.model
	}
	s.mu.Unlock()
	return s.agent.cfg.Hooks.Run(ctx, in)
}

// projectInstructions returns AGENTS.md then CLAUDE.md from the cwd, read
// on the session's first request and kept, so the system prompt stays
// stable (and cacheable) for the whole session.
func (s *Session) projectInstructions() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.projectContext != nil {
		return *s.projectContext
	}
	var b strings.Builder
	for _, name := range []string{"AGENTS.md", "CLAUDE.md"} {
		data, err := os.ReadFile(filepath.Join(s.cwd, name))
		if err != nil {
			continue
		}
		fmt.Fprintf(&b, "Contents of %s (project instructions):\n\n%s\n\n", filepath.Join(s.cwd, name), strings.TrimSpace(string(data)))
	}
	text := strings.TrimSpace(b.String())
	s.projectContext = &text
	return text
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
	if err := s.log.Close(); err != nil {
		s.agent.log.Warn("closing session log", "session", s.id, "error", err)
	}
}

func unmarshalString(raw json.RawMessage, out *string) error { return json.Unmarshal(raw, out) }
