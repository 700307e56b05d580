package loop_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/sessionlog"
)

// toolTurnBody answers like a model using one tool per prompt: a Read of
// file, then (once the result is in the request) a short answer.
func toolTurnBody(file string) func(req []byte) []byte {
	var n int
	return func(req []byte) []byte {
		var r struct {
			Messages []struct {
				Content []struct {
					Type string `json:"type"`
				} `json:"content"`
			} `json:"messages"`
		}
		json.Unmarshal(req, &r)
		last := r.Messages[len(r.Messages)-1].Content
		var b bytes.Buffer
		b.WriteString("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_b\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-test\",\"content\":[],\"usage\":{\"input_tokens\":1000,\"output_tokens\":1}}}\n\n")
		b.WriteString("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
		if len(last) > 0 && last[0].Type == "tool_result" {
			for _, w := range strings.SplitAfter("The notes say what the file says; nothing else to do here.", " ") {
				fmt.Fprintf(&b, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":%q}}\n\n", w)
			}
			b.WriteString("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n")
			b.WriteString("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":12}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
			return b.Bytes()
		}
		n++
		input, _ := json.Marshal(map[string]string{"file_path": file})
		partial, _ := json.Marshal(string(input))
		b.WriteString("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Let me read the notes.\"}}\n\n")
		b.WriteString("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n")
		fmt.Fprintf(&b, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_bench_%06d\",\"name\":\"Read\",\"input\":{}}}\n\n", n)
		fmt.Fprintf(&b, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":%s}}\n\n", partial)
		b.WriteString("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n")
		b.WriteString("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":30}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
		return b.Bytes()
	}
}

// benchLog runs tool-using turns through the loop (built-in hooks on,
// as cordis runs) until the session log holds at least events events,
// and returns the state directory, the session and its cwd.
func benchLog(b *testing.B, events int) (state, sid, cwd string) {
	b.Helper()
	cwd, state = b.TempDir(), b.TempDir()
	notes := filepath.Join(cwd, "notes.txt")
	os.WriteFile(notes, []byte(strings.Repeat("A line of project notes for the benchmark.\n", 40)), 0o644)
	cfg := loop.Config{Provider: benchProvider(b, toolTurnBody(notes)), Model: "claude-test", StateDir: state, Hooks: builtinHooks(b)}
	e := startBench(b, cfg)
	sid = e.open(b, cwd)
	for k := 1; ; k++ {
		e.prompt(b, sid, fmt.Sprintf("Turn %d: read the notes and summarize them.", k))
		data, err := os.ReadFile(sessionlog.Path(state, sid))
		if err != nil {
			b.Fatal(err)
		}
		if bytes.Count(data, []byte("\n")) >= events {
			// Closed, so that the log is not locked when it is loaded.
			e.call(b, "session/close", map[string]any{"sessionId": sid})
			return state, sid, cwd
		}
	}
}

// BenchmarkLoadSession measures session/load of a 10,000-event log
// written by real turns (a Read tool call and an answer per prompt):
// reading the log, rebuilding the history and replaying it to the editor
// as session/update frames, up to the {} response. load/decode is its
// time over a plain decode of the same log (plainDecode).
func BenchmarkLoadSession(b *testing.B) {
	state, sid, cwd := benchLog(b, 10000)
	files := []string{sessionlog.Path(state, sid)}
	var pristine [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		pristine = append(pristine, data)
	}
	provider := benchProvider(b, func([]byte) []byte { return nil })
	hooks := builtinHooks(b)
	var load, decode time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		for i, f := range files {
			os.WriteFile(f, pristine[i], 0o600)
		}
		e := startBench(b, loop.Config{Provider: provider, Model: "claude-test", StateDir: state, Hooks: hooks})
		e.call(b, "initialize", map[string]any{"protocolVersion": 1})
		b.StartTimer()
		start := time.Now()
		e.call(b, "session/load", map[string]any{"sessionId": sid, "cwd": cwd, "mcpServers": []any{}})
		load += time.Since(start)
		b.StopTimer()
		e.call(b, "session/close", map[string]any{"sessionId": sid})
		decode += plainDecode(b, files[0])
		b.StartTimer()
	}
	b.ReportMetric(float64(load)/float64(decode), "load/decode")
}

// plainDecode is the yardstick session/load is measured against (issue
// 23): the time to read the log at path and json.Unmarshal each of its
// lines into an any.
func plainDecode(b *testing.B, path string) time.Duration {
	start := time.Now()
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, sessionlog.MaxLineSize)
	for sc.Scan() {
		var v any
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start)
}
