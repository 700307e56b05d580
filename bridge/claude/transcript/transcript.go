package transcript

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/cordis-agent/cordis/bridge/internal/rendering"
	"github.com/cordis-agent/cordis/llm"
)

// Path is the transcript of the session whose log is at sessionLogPath:
// <stateDir>/sessions/<sessionId>/transcript.jsonl beside
// <stateDir>/sessions/<sessionId>.jsonl.
func Path(sessionLogPath string) string {
	return strings.TrimSuffix(sessionLogPath, ".jsonl") + "/transcript.jsonl"
}

// AgentPath is the transcript of the subagent whose log is at
// agentLogPath: <agentId>.transcript.jsonl beside <agentId>.jsonl.
func AgentPath(agentLogPath string) string {
	return strings.TrimSuffix(agentLogPath, ".jsonl") + ".transcript.jsonl"
}

// Format renders sessions as Claude Code transcripts (a
// rendering.Format).
type Format struct {
	// Version is the agent's version ("version" on every line).
	Version string
	// GitBranch is written as "gitBranch" when set.
	GitBranch string
	// NewUUID makes line uuids; by default a line's uuid is derived from
	// its session, agent and log sequence number, so that a transcript
	// rendered again from the same log is the same file. Tests set it.
	NewUUID func() string
}

var _ rendering.Format = Format{}

// Path is the transcript of the log at logPath.
func (Format) Path(logPath string, agent bool) string {
	if agent {
		return AgentPath(logPath)
	}
	return Path(logPath)
}

// Start begins a transcript; it has no header line.
func (f Format) Start(file rendering.File) (rendering.Renderer, []byte) {
	return &renderer{f: f, file: file}, nil
}

// renderer renders one transcript, carrying the parentUuid chain.
type renderer struct {
	f      Format
	file   rendering.File
	parent string // uuid of the last line
}

// Render writes a message as one line; other entries have none.
func (r *renderer) Render(e rendering.Entry) []byte {
	if e.Message == nil {
		return nil
	}
	return r.line(*e.Message, e)
}

// uuid is the uuid of e's line.
func (r *renderer) uuid(e rendering.Entry) string {
	if r.f.NewUUID != nil {
		return r.f.NewUUID()
	}
	sum := sha256.Sum256([]byte(r.file.SessionID + "\x00" + r.file.AgentID + "\x00" + strconv.FormatInt(e.Seq, 10)))
	b := sum[:16]
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// entry is one transcript line, fields in Claude Code's order.
type entry struct {
	ParentUUID  *string `json:"parentUuid"`
	IsSidechain bool    `json:"isSidechain"`
	UserType    string  `json:"userType"`
	Cwd         string  `json:"cwd"`
	SessionID   string  `json:"sessionId"`
	Version     string  `json:"version"`
	GitBranch   string  `json:"gitBranch,omitempty"`
	AgentID     string  `json:"agentId,omitempty"`
	Type        string  `json:"type"`
	Message     any     `json:"message"`
	UUID        string  `json:"uuid"`
	Timestamp   string  `json:"timestamp"`
}

type userMessage struct {
	Role    string  `json:"role"`
	Content []block `json:"content"`
}

type assistantMessage struct {
	ID      string  `json:"id"`
	Type    string  `json:"type"`
	Role    string  `json:"role"`
	Model   string  `json:"model,omitempty"`
	Content []block `json:"content"`
}

// block is a content block in the Anthropic wire shape.
type block struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text,omitempty"`
	Source    *imageSource    `json:"source,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   any             `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
	Thinking  *string         `json:"thinking,omitempty"`
	Signature string          `json:"signature,omitempty"`
	Data      string          `json:"data,omitempty"`
}

type imageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

// line renders m as e's line and advances the chain.
func (r *renderer) line(m llm.Message, e rendering.Entry) []byte {
	id := r.uuid(e)
	l := entry{
		IsSidechain: r.file.AgentID != "",
		UserType:    "external",
		Cwd:         e.Cwd,
		SessionID:   r.file.SessionID,
		Version:     r.f.Version,
		GitBranch:   r.f.GitBranch,
		AgentID:     r.file.AgentID,
		UUID:        id,
		Timestamp:   e.Time.UTC().Format("2006-01-02T15:04:05.000Z"),
	}
	if r.parent != "" {
		p := r.parent
		l.ParentUUID = &p
	}
	content := blocks(m.Content)
	if m.Role == llm.RoleAssistant {
		l.Type = "assistant"
		l.Message = assistantMessage{ID: "msg_" + strings.ReplaceAll(id, "-", ""), Type: "message", Role: "assistant", Model: r.file.Model, Content: content}
	} else {
		l.Type = "user"
		l.Message = userMessage{Role: "user", Content: content}
	}
	b, err := json.Marshal(l)
	if err != nil {
		// Only a RawMessage that is not JSON can fail; drop the inputs.
		for i := range content {
			content[i].Input = json.RawMessage("{}")
		}
		b, _ = json.Marshal(l)
	}
	r.parent = id
	return append(b, '\n')
}

func blocks(in []llm.Block) []block {
	out := make([]block, 0, len(in))
	for _, b := range in {
		switch b.Type {
		case llm.BlockText:
			t := b.Text
			out = append(out, block{Type: "text", Text: &t})
		case llm.BlockImage:
			out = append(out, block{Type: "image", Source: &imageSource{Type: "base64", MediaType: b.MediaType, Data: b.Data}})
		case llm.BlockToolUse:
			input := b.Input
			if len(input) == 0 || !json.Valid(input) {
				input = json.RawMessage("{}")
			}
			out = append(out, block{Type: "tool_use", ID: b.ID, Name: b.Name, Input: input})
		case llm.BlockToolResult:
			out = append(out, block{Type: "tool_result", ToolUseID: b.ToolUseID, Content: resultContent(b.Content), IsError: b.IsError})
		case llm.BlockThinking:
			t := b.Thinking
			out = append(out, block{Type: "thinking", Thinking: &t, Signature: b.Signature})
		case llm.BlockRedactedThinking:
			out = append(out, block{Type: "redacted_thinking", Data: b.Data})
		default:
			t := b.Text
			out = append(out, block{Type: string(b.Type), Text: &t})
		}
	}
	return out
}

// resultContent is a tool result's content: a string when it is all text
// (as Claude Code writes it), otherwise a list of blocks.
func resultContent(in []llm.Block) any {
	var text strings.Builder
	for i, b := range in {
		if b.Type != llm.BlockText {
			return blocks(in)
		}
		if i > 0 {
			text.WriteString("\n")
		}
		text.WriteString(b.Text)
	}
	return text.String()
}
