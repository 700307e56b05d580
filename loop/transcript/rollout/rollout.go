package rollout

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/cordis-agent/cordis/internal/secrets"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/loop/transcript"
	"github.com/cordis-agent/cordis/sessionlog"
)

// ErrClosed is returned by the writing methods after Close.
var ErrClosed = errors.New("rollout: writer is closed")

// Path returns <stateDir>/sessions/<sessionID>/rollout.transcript.jsonl.
func Path(stateDir, sessionID string) string {
	return filepath.Join(strings.TrimSuffix(sessionlog.Path(stateDir, sessionID), ".jsonl"), "rollout.transcript.jsonl")
}

// SubagentPath returns
// <stateDir>/sessions/<parentSessionID>/subagents/<agentID>.rollout.transcript.jsonl.
func SubagentPath(stateDir, parentSessionID, agentID string) string {
	return strings.TrimSuffix(sessionlog.SubagentPath(stateDir, parentSessionID, agentID), ".jsonl") + ".rollout.transcript.jsonl"
}

// Options describe the session (or subagent) a rollout belongs to; they
// fill its session_meta line.
type Options struct {
	SessionID string
	Cwd       string
	// Version is the agent's version (cli_version).
	Version string
	// ModelProvider is model_provider ("anthropic", "openai"); left out
	// when empty.
	ModelProvider string
	// AgentID marks a subagent's rollout: its id is AgentID and its source
	// says it was spawned by SessionID at Depth, as AgentType.
	AgentID   string
	AgentType string
	Depth     int
	// ContextWindow is token_count's model_context_window (0 writes null).
	ContextWindow int
	// Now stamps lines (default time.Now).
	Now func() time.Time
}

// TurnContext describes a turn as it starts.
type TurnContext struct {
	TurnID string
	Cwd    string
	Model  string
	// Mode is the permission mode (default, acceptEdits, plan,
	// bypassPermissions), mapped to approval_policy and sandbox_policy.
	Mode string
	// Effort is the reasoning effort, left out when empty.
	Effort string
}

// Usage is Codex's TokenUsage.
type Usage struct {
	InputTokens           int64 `json:"input_tokens"`
	CachedInputTokens     int64 `json:"cached_input_tokens"`
	OutputTokens          int64 `json:"output_tokens"`
	ReasoningOutputTokens int64 `json:"reasoning_output_tokens"`
	TotalTokens           int64 `json:"total_tokens"`
}

// UsageOf maps a model response's usage to Codex's terms: input includes
// cache reads and writes, cached input is the cache reads.
func UsageOf(u llm.Usage) Usage {
	in := int64(u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens)
	out := int64(u.OutputTokens)
	return Usage{InputTokens: in, CachedInputTokens: int64(u.CacheReadInputTokens), OutputTokens: out, TotalTokens: in + out}
}

func (u Usage) add(v Usage) Usage {
	return Usage{
		InputTokens:           u.InputTokens + v.InputTokens,
		CachedInputTokens:     u.CachedInputTokens + v.CachedInputTokens,
		OutputTokens:          u.OutputTokens + v.OutputTokens,
		ReasoningOutputTokens: u.ReasoningOutputTokens + v.ReasoningOutputTokens,
		TotalTokens:           u.TotalTokens + v.TotalTokens,
	}
}

// Writer appends items to a rollout file.
type Writer struct {
	path string
	opts Options

	mu    sync.Mutex
	f     *os.File // nil once closed
	total Usage    // cumulative usage of the file's token_count lines
}

// Open opens (creating it and its directory if needed) the rollout at path
// for appending. A new file starts with session_meta; an existing one's
// cumulative usage is continued. A torn last line is removed first.
func Open(path string, opts Options) (*Writer, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("rollout: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("rollout: %w", err)
	}
	w := &Writer{path: path, opts: opts, f: f}
	empty, total, err := lastTotal(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("rollout: %s: %w", path, err)
	}
	w.total = total
	if empty {
		if err := w.write(w.sessionMeta()); err != nil {
			f.Close()
			return nil, err
		}
	}
	return w, nil
}

// Path is the file the Writer appends to (what transcript_path names).
func (w *Writer) Path() string { return w.path }

// Total is the cumulative usage written so far.
func (w *Writer) Total() Usage {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.total
}

// TurnContext writes a turn_context line.
func (w *Writer) TurnContext(tc TurnContext) error {
	approval, sandbox := policies(tc.Mode)
	return w.write(line{"turn_context", turnContext{
		TurnID: tc.TurnID, Cwd: firstNonEmpty(tc.Cwd, w.opts.Cwd), ApprovalPolicy: approval, SandboxPolicy: sandbox,
		Model: tc.Model, Effort: tc.Effort, Summary: "auto",
	}})
}

// Append writes each message's lines, in order.
func (w *Writer) Append(msgs ...llm.Message) error {
	var items []line
	for _, m := range msgs {
		items = append(items, messageLines(m)...)
	}
	return w.write(items...)
}

// TokenCount adds a model response's usage to the total and writes a
// token_count line.
func (w *Writer) TokenCount(u llm.Usage) error {
	last := UsageOf(u)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return ErrClosed
	}
	total := w.total.add(last)
	info := tokenInfo{Total: total, Last: last}
	if w.opts.ContextWindow > 0 {
		cw := w.opts.ContextWindow
		info.ContextWindow = &cw
	}
	if err := w.writeLocked(line{"event_msg", tokenCount{Type: "token_count", Info: &info}}); err != nil {
		return err
	}
	w.total = total
	return nil
}

// Close closes the file; later writes fail with ErrClosed.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}

func (w *Writer) write(items ...line) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return ErrClosed
	}
	return w.writeLocked(items...)
}

// writeLocked renders items stamped now and writes them at once; w.mu is
// held.
func (w *Writer) writeLocked(items ...line) error {
	if len(items) == 0 {
		return nil
	}
	ts := w.opts.Now().UTC().Format(timeFormat)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// serde_json (Codex) does not escape <, > and &; neither do we.
	enc.SetEscapeHTML(false)
	for _, it := range items {
		if err := enc.Encode(rolloutLine{Timestamp: ts, Type: it.typ, Payload: it.payload}); err != nil {
			return fmt.Errorf("rollout: %w", err)
		}
	}
	if _, err := w.f.Write(secrets.Scrub(buf.Bytes())); err != nil {
		return fmt.Errorf("rollout: %w", err)
	}
	return nil
}

const timeFormat = "2006-01-02T15:04:05.000Z"

func (w *Writer) sessionMeta() line {
	o := w.opts
	m := sessionMeta{
		ID: o.SessionID, Timestamp: o.Now().UTC().Format(timeFormat), Cwd: o.Cwd,
		Originator: "cordis", CLIVersion: o.Version, Source: "vscode", ModelProvider: o.ModelProvider,
	}
	if o.AgentID != "" {
		m.ID = o.AgentID
		m.Source = map[string]any{"subagent": map[string]any{"thread_spawn": threadSpawn{ParentThreadID: o.SessionID, Depth: o.Depth, AgentRole: o.AgentType}}}
	}
	return line{"session_meta", m}
}

// line is one rollout item before it is stamped.
type line struct {
	typ     string
	payload any
}

type rolloutLine struct {
	Timestamp string `json:"timestamp"`
	Type      string `json:"type"`
	Payload   any    `json:"payload"`
}

type sessionMeta struct {
	ID            string `json:"id"`
	Timestamp     string `json:"timestamp"`
	Cwd           string `json:"cwd"`
	Originator    string `json:"originator"`
	CLIVersion    string `json:"cli_version"`
	Source        any    `json:"source"`
	ModelProvider string `json:"model_provider,omitempty"`
}

type threadSpawn struct {
	ParentThreadID string `json:"parent_thread_id"`
	Depth          int    `json:"depth"`
	AgentRole      string `json:"agent_role,omitempty"`
}

type turnContext struct {
	TurnID         string         `json:"turn_id,omitempty"`
	Cwd            string         `json:"cwd"`
	ApprovalPolicy string         `json:"approval_policy,omitempty"`
	SandboxPolicy  *sandboxPolicy `json:"sandbox_policy,omitempty"`
	Model          string         `json:"model"`
	Effort         string         `json:"effort,omitempty"`
	Summary        string         `json:"summary"`
}

type sandboxPolicy struct {
	Type string `json:"type"`
}

// policies maps a permission mode to Codex's approval and sandbox
// policies. cordis runs what it runs unsandboxed, so every mode but plan
// is danger-full-access; acceptEdits (edits without asking, commands
// asked) has no Codex approval policy.
func policies(mode string) (string, *sandboxPolicy) {
	switch mode {
	case "default":
		return "untrusted", &sandboxPolicy{"danger-full-access"}
	case "acceptEdits":
		return "", &sandboxPolicy{"danger-full-access"}
	case "plan":
		return "never", &sandboxPolicy{"read-only"}
	case "bypassPermissions":
		return "never", &sandboxPolicy{"danger-full-access"}
	}
	return "", nil
}

type tokenCount struct {
	Type       string     `json:"type"`
	Info       *tokenInfo `json:"info"`
	RateLimits any        `json:"rate_limits"`
}

type tokenInfo struct {
	Total         Usage `json:"total_token_usage"`
	Last          Usage `json:"last_token_usage"`
	ContextWindow *int  `json:"model_context_window"`
}

type message struct {
	Type    string        `json:"type"`
	Role    string        `json:"role"`
	Content []contentItem `json:"content"`
}

type contentItem struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	ImageURL string `json:"image_url,omitempty"`
}

type reasoning struct {
	Type    string        `json:"type"`
	Summary []contentItem `json:"summary"`
	Content []contentItem `json:"content"`
}

type functionCall struct {
	Type      string `json:"type"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	CallID    string `json:"call_id"`
}

type functionCallOutput struct {
	Type   string `json:"type"`
	CallID string `json:"call_id"`
	Output string `json:"output"`
}

type userMessage struct {
	Type    string   `json:"type"`
	Message string   `json:"message"`
	Images  []string `json:"images,omitempty"`
}

type agentMessage struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// messageLines renders m as response_item lines in block order, then its
// user_message or agent_message event.
func messageLines(m llm.Message) []line {
	assistant := m.Role == llm.RoleAssistant
	textType, role := "input_text", "user"
	if assistant {
		textType, role = "output_text", "assistant"
	}
	var (
		out    []line
		run    []contentItem // adjacent content, one message
		said   []string      // the event's text
		images []string
	)
	flush := func() {
		if len(run) > 0 {
			out = append(out, line{"response_item", message{Type: "message", Role: role, Content: run}})
			run = nil
		}
	}
	for _, b := range m.Content {
		switch b.Type {
		case llm.BlockText:
			run = append(run, contentItem{Type: textType, Text: b.Text})
			if assistant || !isReminder(b.Text) {
				said = append(said, b.Text)
			}
		case llm.BlockImage:
			url := "data:" + b.MediaType + ";base64," + b.Data
			run = append(run, contentItem{Type: "input_image", ImageURL: url})
			images = append(images, url)
		case llm.BlockThinking:
			flush()
			out = append(out, line{"response_item", reasoning{Type: "reasoning", Summary: []contentItem{}, Content: []contentItem{{Type: "reasoning_text", Text: b.Thinking}}}})
		case llm.BlockToolUse:
			flush()
			args := string(b.Input)
			if len(b.Input) == 0 || !json.Valid(b.Input) {
				args = "{}"
			}
			out = append(out, line{"response_item", functionCall{Type: "function_call", Name: b.Name, Arguments: args, CallID: b.ID}})
		case llm.BlockToolResult:
			flush()
			out = append(out, line{"response_item", functionCallOutput{Type: "function_call_output", CallID: b.ToolUseID, Output: resultText(b.Content)}})
		}
		// Redacted thinking has no readable form; it is left out.
	}
	flush()
	switch {
	case assistant && len(said) > 0:
		out = append(out, line{"event_msg", agentMessage{Type: "agent_message", Message: strings.Join(said, "")}})
	case !assistant && (len(said) > 0 || len(images) > 0):
		out = append(out, line{"event_msg", userMessage{Type: "user_message", Message: strings.Join(said, "\n"), Images: images}})
	}
	return out
}

// isReminder reports whether a text block is context cordis injected (a
// whole <system-reminder>), not what the user typed.
func isReminder(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "<system-reminder>") && strings.HasSuffix(s, "</system-reminder>")
}

// resultText is a tool result's text; an image stands as [image <type>].
func resultText(in []llm.Block) string {
	parts := make([]string, 0, len(in))
	for _, b := range in {
		switch b.Type {
		case llm.BlockText:
			parts = append(parts, b.Text)
		case llm.BlockImage:
			parts = append(parts, "[image "+b.MediaType+"]")
		}
	}
	return strings.Join(parts, "\n")
}

// lastTotal cuts off a torn tail and returns whether the file is empty
// and the total_token_usage of its last token_count line.
func lastTotal(f *os.File) (empty bool, total Usage, err error) {
	lines, size, err := transcript.CompleteTail(f)
	if err != nil {
		return false, Usage{}, err
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if !bytes.Contains(lines[i], []byte(`"token_count"`)) {
			continue
		}
		var l struct {
			Payload tokenCount `json:"payload"`
		}
		if json.Unmarshal(lines[i], &l) == nil && l.Payload.Type == "token_count" && l.Payload.Info != nil {
			return false, l.Payload.Info.Total, nil
		}
	}
	return size == 0, Usage{}, nil
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
