package rollout

import (
	"bytes"
	"cmp"
	"encoding/json"
	"strings"
	"time"

	"github.com/cordis-agent/cordis/bridge/internal/rendering"
	"github.com/cordis-agent/cordis/llm"
)

// Path is the rollout of the session whose log is at sessionLogPath:
// <stateDir>/sessions/<sessionId>/rollout.transcript.jsonl.
func Path(sessionLogPath string) string {
	return strings.TrimSuffix(sessionLogPath, ".jsonl") + "/rollout.transcript.jsonl"
}

// AgentPath is the rollout of the subagent whose log is at agentLogPath:
// <agentId>.rollout.transcript.jsonl beside <agentId>.jsonl.
func AgentPath(agentLogPath string) string {
	return strings.TrimSuffix(agentLogPath, ".jsonl") + ".rollout.transcript.jsonl"
}

// Format renders sessions as Codex rollouts (a rendering.Format).
type Format struct {
	// Version is the agent's version (cli_version).
	Version string
	// ModelProvider names the model provider (model_provider: "anthropic",
	// "openai"), asked as each file starts; nil or "" leaves it out.
	ModelProvider func() string
}

var _ rendering.Format = Format{}

// Path is the rollout of the log at logPath.
func (Format) Path(logPath string, agent bool) string {
	if agent {
		return AgentPath(logPath)
	}
	return Path(logPath)
}

// Start begins a rollout with its session_meta line.
func (f Format) Start(file rendering.File) (rendering.Renderer, []byte) {
	var provider string
	if f.ModelProvider != nil {
		provider = f.ModelProvider()
	}
	r := &renderer{file: file}
	return r, encode(file.Started, sessionMeta(file, f.Version, provider))
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

// renderer renders one rollout, carrying the cumulative usage.
type renderer struct {
	file  rendering.File
	total Usage // cumulative usage of the file's token_count lines
}

// Render writes a turn's turn_context, a message's lines, or a model
// response's token_count.
func (r *renderer) Render(e rendering.Entry) []byte {
	switch {
	case e.Turn != nil:
		approval, sandbox := policies(e.Turn.Mode)
		return encode(e.Time, line{"turn_context", turnContext{
			TurnID: e.Turn.ID, Cwd: cmp.Or(e.Turn.Cwd, r.file.Cwd), ApprovalPolicy: approval, SandboxPolicy: sandbox,
			Model: e.Turn.Model, Summary: "auto",
		}})
	case e.Message != nil:
		return encode(e.Time, messageLines(*e.Message)...)
	case e.Usage != nil:
		last := UsageOf(*e.Usage)
		r.total = r.total.add(last)
		info := tokenInfo{Total: r.total, Last: last}
		if cw := r.file.ContextWindow; cw > 0 {
			info.ContextWindow = &cw
		}
		return encode(e.Time, line{"event_msg", tokenCount{Type: "token_count", Info: &info}})
	}
	return nil
}

// encode renders items stamped at t.
func encode(t time.Time, items ...line) []byte {
	ts := t.UTC().Format(timeFormat)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// serde_json (Codex) does not escape <, > and &; neither do we.
	enc.SetEscapeHTML(false)
	for _, it := range items {
		if err := enc.Encode(rolloutLine{Timestamp: ts, Type: it.typ, Payload: it.payload}); err != nil {
			// Only a payload that is not JSON can fail (never: inputs are
			// checked); leave the item out rather than a broken line.
			continue
		}
	}
	return buf.Bytes()
}

const timeFormat = "2006-01-02T15:04:05.000Z"

func sessionMeta(o rendering.File, version, provider string) line {
	m := sessionMetaPayload{
		ID: o.SessionID, Timestamp: o.Started.UTC().Format(timeFormat), Cwd: o.Cwd,
		Originator: "cordis", CLIVersion: version, Source: "vscode", ModelProvider: provider,
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

type sessionMetaPayload struct {
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
