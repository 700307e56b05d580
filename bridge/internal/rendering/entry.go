package rendering

import (
	"time"

	"github.com/cordis-agent/cordis/llm"
)

// Entry is one thing a rendering shows, in log order: exactly one of
// Turn, Message and Usage is set.
type Entry struct {
	// Time and Seq are those of the log event the entry comes from.
	Time time.Time
	Seq  int64
	// Cwd is the session's working directory when it happened.
	Cwd string
	// Turn: a turn begins (before its first message).
	Turn *Turn
	// Message: a message entered the history.
	Message *llm.Message
	// Usage: a complete model response was billed.
	Usage *llm.Usage
}

// Turn describes a turn as it begins.
type Turn struct {
	ID    string
	Cwd   string
	Model string
	// Mode is the session's permission mode (default, acceptEdits, plan,
	// bypassPermissions).
	Mode string
}

// File describes the log a rendering file renders.
type File struct {
	// SessionID is the session's id (a subagent's parent session).
	SessionID string
	// Cwd is the session's working directory when the file starts.
	Cwd string
	// Model is the model the session started with.
	Model string
	// Started is the time of the log's first event.
	Started time.Time
	// AgentID, AgentType and Depth are set for a subagent's log (Depth 1
	// for a subagent of the main agent).
	AgentID   string
	AgentType string
	Depth     int
	// ContextWindow is the model's context window in tokens (0: unknown).
	ContextWindow int
}

// Format is a dialect's rendering.
type Format interface {
	// Path is the rendering of the log at logPath (a subagent's log when
	// agent is set).
	Path(logPath string, agent bool) string
	// Start begins a file: its renderer and the lines the file starts
	// with.
	Start(f File) (Renderer, []byte)
}

// Renderer renders the entries of one file, keeping what the file's
// lines carry over (a parent uuid, a cumulative usage).
type Renderer interface {
	// Render returns the lines of e, each ending in '\n'.
	Render(e Entry) []byte
}
