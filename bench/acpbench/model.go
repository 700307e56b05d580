package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// The scripted model speaks the Anthropic Messages SSE wire, both as
// replay fixtures (fixtures/<name>/01-main/NNN.*) and as a local server.

const benchModel = "claude-sonnet-4-5"

func sseEvent(w io.Writer, name, data string) {
	io.WriteString(w, "event: "+name+"\ndata: "+data+"\n\n")
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func messageStart(w io.Writer, inputTokens int) {
	sseEvent(w, "message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_bench","type":"message","role":"assistant","model":%q,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":%d,"output_tokens":1}}}`, benchModel, inputTokens))
}

func textStart(w io.Writer, index int) {
	sseEvent(w, "content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, index))
}

func textDelta(w io.Writer, index int, text string) {
	sseEvent(w, "content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%s}}`, index, quote(text)))
}

func blockStop(w io.Writer, index int) {
	sseEvent(w, "content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, index))
}

func messageEnd(w io.Writer, stop string, outputTokens int) {
	sseEvent(w, "message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":%d}}`, stop, outputTokens))
	sseEvent(w, "message_stop", `{"type":"message_stop"}`)
}

// textBody is a whole SSE body answering with one text block.
func textBody(deltas []string, inputTokens int) string {
	var b strings.Builder
	messageStart(&b, inputTokens)
	textStart(&b, 0)
	for _, d := range deltas {
		textDelta(&b, 0, d)
	}
	blockStop(&b, 0)
	messageEnd(&b, "end_turn", len(deltas))
	return b.String()
}

// deltaText is the i-th streamed delta: 16 bytes, a typical size for a
// model's token deltas, carrying its index so that latency can be matched.
func deltaText(i int) string { return fmt.Sprintf("d%06d lorem   ", i) }

// turn is one prompt of a scripted text conversation.
type turn struct {
	prompt string
	deltas []string
}

type block struct {
	CacheControl *cacheControl `json:"cache_control,omitempty"`
	Text         string        `json:"text"`
	Type         string        `json:"type"`
}

type cacheControl struct {
	Type string `json:"type"`
}

type message struct {
	Content []block `json:"content"`
	Role    string  `json:"role"`
}

// withCacheBreakpoints is history with the prompt-cache breakpoints the
// Anthropic provider places (llm/anthropic placeCacheBreakpoints): the
// first message, and the last two user messages after it.
func withCacheBreakpoints(history []message) []message {
	out := make([]message, len(history))
	for i, m := range history {
		out[i] = message{Content: slices.Clone(m.Content), Role: m.Role}
	}
	mark := func(m *message) { m.Content[len(m.Content)-1].CacheControl = &cacheControl{Type: "ephemeral"} }
	if len(out) > 0 {
		mark(&out[0])
	}
	for i, marked := len(out)-1, 0; i > 0 && marked < 2; i-- {
		if out[i].Role == "user" {
			mark(&out[i])
			marked++
		}
	}
	return out
}

// writeTextFixture writes a replay fixture for a text-only conversation:
// request k repeats the whole history, as the loop sends it.
func writeTextFixture(dir string, turns []turn) error {
	conv := filepath.Join(dir, "01-main")
	if err := os.MkdirAll(conv, 0o755); err != nil {
		return err
	}
	meta := fmt.Sprintf("model: %s\nmaxTokens: 8192\n", benchModel)
	if err := os.WriteFile(filepath.Join(dir, "fixture.yml"), []byte(meta), 0o644); err != nil {
		return err
	}
	var history []message
	for k, t := range turns {
		history = append(history, message{[]block{{Text: t.prompt, Type: "text"}}, "user"})
		req := map[string]any{"max_tokens": 8192, "messages": withCacheBreakpoints(history), "model": benchModel, "stream": true,
			"system": "{{system}}", "tools": "{{tools}}"}
		data, err := json.MarshalIndent(req, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(conv, fmt.Sprintf("%03d.request.json", k+1)), append(data, '\n'), 0o644); err != nil {
			return err
		}
		body := textBody(t.deltas, 100+k)
		if err := os.WriteFile(filepath.Join(conv, fmt.Sprintf("%03d.response.sse", k+1)), []byte(body), 0o644); err != nil {
			return err
		}
		history = append(history, message{[]block{{Text: strings.Join(t.deltas, ""), Type: "text"}}, "assistant"})
	}
	return nil
}

// model is a local server speaking the Anthropic wire, for cordis (with
// ANTHROPIC_BASE_URL) and the relay.
type model struct {
	srv *httptest.Server

	mu sync.Mutex
	// mode: "stream" (n deltas as fast as the socket takes them),
	// "paced" (n deltas, one every gap, each flushed and timed), "tools"
	// (a Read tool call, then a short text once the result comes back).
	mode string
	n    int
	gap  time.Duration
	file string // tools: the file the Read call reads
	// tool and input, when tool is set, replace the Read call of
	// "tools" mode (the tools benchmark: any tool, any input).
	tool, input string
	sent        []time.Time // paced: when delta i was written
	calls       int
}

func newModel() *model {
	m := &model{}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	return m
}

func (m *model) set(mode string, n int, gap time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.mode, m.n, m.gap = mode, n, gap
	m.sent = make([]time.Time, n)
}

func (m *model) sentTimes() []time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]time.Time(nil), m.sent...)
}

func (m *model) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	m.mu.Lock()
	mode, n, gap, file := m.mode, m.n, m.gap, m.file
	tool, input := "Read", `{"file_path":`+quote(file)+`}`
	if m.tool != "" {
		tool, input = m.tool, m.input
	}
	m.calls++
	call := m.calls
	m.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	flusher, _ := w.(http.Flusher)
	bw := bufio.NewWriterSize(w, 64<<10)
	defer bw.Flush()
	switch mode {
	case "stream":
		messageStart(bw, 100)
		textStart(bw, 0)
		for i := range n {
			textDelta(bw, 0, deltaText(i))
		}
		blockStop(bw, 0)
		messageEnd(bw, "end_turn", n)
	case "paced":
		messageStart(bw, 100)
		textStart(bw, 0)
		bw.Flush()
		flusher.Flush()
		for i := range n {
			time.Sleep(gap)
			t := time.Now()
			textDelta(bw, 0, deltaText(i))
			bw.Flush()
			flusher.Flush()
			m.mu.Lock()
			if i < len(m.sent) {
				m.sent[i] = t
			}
			m.mu.Unlock()
		}
		blockStop(bw, 0)
		messageEnd(bw, "end_turn", n)
	case "tools":
		if lastIsToolResult(body) {
			messageStart(bw, 1000)
			textStart(bw, 0)
			for _, d := range strings.SplitAfter("The notes say what the file says; nothing else to do here.", " ") {
				textDelta(bw, 0, d)
			}
			blockStop(bw, 0)
			messageEnd(bw, "end_turn", 12)
			return
		}
		messageStart(bw, 1000)
		textStart(bw, 0)
		textDelta(bw, 0, "Let me read the notes.")
		blockStop(bw, 0)
		sseEvent(bw, "content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_bench_%06d","name":%s,"input":{}}}`, call, quote(tool)))
		sseEvent(bw, "content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":%s}}`, quote(input)))
		blockStop(bw, 1)
		messageEnd(bw, "tool_use", 30)
	default:
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bench model: no mode"}}`, 400)
	}
}

func lastIsToolResult(body []byte) bool {
	var req struct {
		Messages []struct {
			Content []struct {
				Type string `json:"type"`
			} `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil || len(req.Messages) == 0 {
		return false
	}
	for _, b := range req.Messages[len(req.Messages)-1].Content {
		if b.Type == "tool_result" {
			return true
		}
	}
	return false
}
