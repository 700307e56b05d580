package transcript

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
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
	"github.com/cordis-agent/cordis/sessionlog"
)

// ErrClosed is returned by Append after Close.
var ErrClosed = errors.New("transcript: writer is closed")

// Path returns <stateDir>/sessions/<sessionID>/transcript.jsonl.
func Path(stateDir, sessionID string) string {
	return filepath.Join(strings.TrimSuffix(sessionlog.Path(stateDir, sessionID), ".jsonl"), "transcript.jsonl")
}

// SubagentPath returns
// <stateDir>/sessions/<parentSessionID>/subagents/<agentID>.transcript.jsonl.
func SubagentPath(stateDir, parentSessionID, agentID string) string {
	return strings.TrimSuffix(sessionlog.SubagentPath(stateDir, parentSessionID, agentID), ".jsonl") + ".transcript.jsonl"
}

// Options describe the session a transcript belongs to.
type Options struct {
	SessionID string
	Cwd       string
	// Version is the agent's version ("version" on every line).
	Version string
	// GitBranch is written as "gitBranch" when set.
	GitBranch string
	// AgentID marks a subagent's transcript: isSidechain is true and every
	// line carries agentId.
	AgentID string
	// Model is the model of assistant messages (message.model); SetModel
	// changes it.
	Model string
	// Now stamps lines (default time.Now); NewUUID makes uuids (default
	// random version 4). Tests set both.
	Now     func() time.Time
	NewUUID func() string
}

// Writer appends messages to a transcript file.
type Writer struct {
	path string
	opts Options

	mu     sync.Mutex
	f      *os.File // nil once closed
	parent string   // uuid of the last line
	model  string
}

// Open opens (creating it and its directory if needed) the transcript at
// path for appending. An existing file's parentUuid chain is continued; a
// torn last line is removed first.
func Open(path string, opts Options) (*Writer, error) {
	opts = withDefaults(opts)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	parent, err := lastUUID(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("transcript: %s: %w", path, err)
	}
	return &Writer{path: path, opts: opts, f: f, parent: parent, model: opts.Model}, nil
}

// Rewrite replaces the transcript at path with msgs (atomically: a
// temporary file renamed over it), for a session rebuilt from its log.
func Rewrite(path string, opts Options, msgs []llm.Message) error {
	opts = withDefaults(opts)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".transcript-*.tmp")
	if err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	defer os.Remove(tmp.Name())
	w := &Writer{path: path, opts: opts, model: opts.Model}
	var buf bytes.Buffer
	for _, m := range msgs {
		buf.Write(w.line(m))
	}
	if _, err := tmp.Write(secrets.Scrub(buf.Bytes())); err != nil {
		tmp.Close()
		return fmt.Errorf("transcript: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	if err := os.Chmod(tmp.Name(), 0o600); err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	return nil
}

func withDefaults(o Options) Options {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.NewUUID == nil {
		o.NewUUID = newUUID
	}
	return o
}

// Path is the file the Writer appends to (what transcript_path names).
func (w *Writer) Path() string { return w.path }

// SetModel sets the model written on later assistant messages.
func (w *Writer) SetModel(model string) {
	w.mu.Lock()
	w.model = model
	w.mu.Unlock()
}

// Append writes one line per message, in order.
func (w *Writer) Append(msgs ...llm.Message) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return ErrClosed
	}
	var buf bytes.Buffer
	for _, m := range msgs {
		buf.Write(w.line(m))
	}
	if _, err := w.f.Write(secrets.Scrub(buf.Bytes())); err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	return nil
}

// Close closes the file; later Appends fail with ErrClosed.
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

// line renders m and advances the chain. The caller holds w.mu (or owns w).
func (w *Writer) line(m llm.Message) []byte {
	id := w.opts.NewUUID()
	e := entry{
		IsSidechain: w.opts.AgentID != "",
		UserType:    "external",
		Cwd:         w.opts.Cwd,
		SessionID:   w.opts.SessionID,
		Version:     w.opts.Version,
		GitBranch:   w.opts.GitBranch,
		AgentID:     w.opts.AgentID,
		UUID:        id,
		Timestamp:   w.opts.Now().UTC().Format("2006-01-02T15:04:05.000Z"),
	}
	if w.parent != "" {
		p := w.parent
		e.ParentUUID = &p
	}
	content := blocks(m.Content)
	if m.Role == llm.RoleAssistant {
		e.Type = "assistant"
		e.Message = assistantMessage{ID: "msg_" + strings.ReplaceAll(id, "-", ""), Type: "message", Role: "assistant", Model: w.model, Content: content}
	} else {
		e.Type = "user"
		e.Message = userMessage{Role: "user", Content: content}
	}
	b, err := json.Marshal(e)
	if err != nil {
		// Only a RawMessage that is not JSON can fail; drop the inputs.
		for i := range content {
			content[i].Input = json.RawMessage("{}")
		}
		b, _ = json.Marshal(e)
	}
	w.parent = id
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

// lastUUID returns the uuid of the file's last complete line, after
// cutting off a torn tail.
func lastUUID(f *os.File) (string, error) {
	lines, _, err := CompleteTail(f)
	if err != nil {
		return "", err
	}
	for i := len(lines) - 1; i >= 0; i-- {
		var e struct {
			UUID string `json:"uuid"`
		}
		if json.Unmarshal(lines[i], &e) == nil && e.UUID != "" {
			return e.UUID, nil
		}
	}
	return "", nil
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
