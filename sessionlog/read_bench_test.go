package sessionlog

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// benchLog writes a log of about n events shaped like a real session's:
// per turn a prompt, two model calls around one Read tool call, hook runs
// and the messages (a 40-line tool result, kept twice as the loop keeps
// it: in tool/result and in the next context/message).
func benchLog(b *testing.B, n int) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "s.jsonl")
	w, err := Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	output := strings.Repeat("     1\tA line of project notes for the benchmark.\n", 40)
	tools := []string{"Read", "Write", "Edit", "Bash", "Glob", "Grep", "TodoWrite", "Task"}
	hook := func(name, event string) {
		w.Append(TypeHookStart, map[string]any{"hook": name, "event": event})
		w.Append(TypeHookResult, map[string]any{"hook": name, "event": event, "durationMs": 0.004, "decision": map[string]any{}})
	}
	w.Append(TypeSessionStart, map[string]any{"sessionId": "sess_bench", "cwd": "/work/project", "model": "claude-sonnet-4-5", "mode": "default"})
	for k := 1; int(w.Seq()) < n; k++ {
		prompt := fmt.Sprintf("Turn %d: read the notes and summarize them.", k)
		id := fmt.Sprintf("toolu_bench_%06d", k)
		text := []map[string]any{{"type": "text", "text": prompt}}
		w.Append(TypeTurnStart, map[string]any{"prompt": prompt, "turnId": fmt.Sprint("turn-", k)})
		w.Append(TypeUserPrompt, map[string]any{"content": text, "turnId": fmt.Sprint("turn-", k)})
		w.Append(TypeMessage, map[string]any{"role": "user", "content": text})
		w.Append(TypeModelRequest, map[string]any{"messages": 4*k - 3, "model": "claude-sonnet-4-5", "tools": tools})
		w.Append(TypeModelResponse, map[string]any{"model": "claude-sonnet-4-5", "stopReason": "tool_use", "usage": map[string]any{"input_tokens": 1000, "output_tokens": 30}})
		w.Append(TypeMessage, map[string]any{"role": "assistant", "content": []map[string]any{{"type": "text", "text": "Let me read the notes."},
			{"type": "tool_use", "id": id, "name": "Read", "input": map[string]any{"file_path": "/work/project/notes.txt"}}}})
		hook("context-monitor", "LLMResponse")
		w.Append(TypeToolCall, map[string]any{"toolCallId": id, "name": "Read", "title": "Read notes.txt", "kind": "read", "input": map[string]any{"file_path": "/work/project/notes.txt"}})
		hook("permission-rules", "PreToolUse")
		hook("input-sanitize", "PreToolUse")
		w.Append(TypePermission, map[string]any{"toolCallId": id, "allowed": true, "source": "mode"})
		hook("metrics", "PostToolUse")
		w.Append(TypeToolResult, map[string]any{"toolCallId": id, "status": "completed", "output": output,
			"content": []map[string]any{{"type": "content", "content": map[string]any{"type": "text", "text": output}}}})
		w.Append(TypeMessage, map[string]any{"role": "user", "content": []map[string]any{{"type": "tool_result", "tool_use_id": id, "content": []map[string]any{{"type": "text", "text": output}}}}})
		w.Append(TypeModelRequest, map[string]any{"messages": 4*k - 1, "model": "claude-sonnet-4-5", "tools": tools})
		w.Append(TypeModelResponse, map[string]any{"model": "claude-sonnet-4-5", "stopReason": "end_turn", "usage": map[string]any{"input_tokens": 1000, "output_tokens": 12}})
		w.Append(TypeMessage, map[string]any{"role": "assistant", "content": []map[string]any{{"type": "text", "text": "The notes say what the file says; nothing else to do here."}}})
		hook("context-monitor", "LLMResponse")
		w.Append(TypeTurnEnd, map[string]any{"stopReason": "end_turn", "turnId": fmt.Sprint("turn-", k)})
	}
	return path
}

// BenchmarkRead reads a 10,000-event log (about 4 MB), the first half of
// session/load.
func BenchmarkRead(b *testing.B) {
	path := benchLog(b, 10000)
	b.ReportAllocs()
	for b.Loop() {
		events, _, err := Read(path)
		if err != nil || len(events) < 10000 {
			b.Fatal(len(events), err)
		}
	}
}

// BenchmarkAppend appends one hook/result-sized event (the most frequent
// kind) to a log, without fsync, as the loop does.
func BenchmarkAppend(b *testing.B) {
	w, err := Create(filepath.Join(b.TempDir(), "s.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	data := map[string]any{"hook": "permission-rules", "event": "PreToolUse", "toolUseId": "toolu_bench_000001", "durationMs": 0.004, "decision": map[string]any{}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := w.Append(TypeHookResult, data); err != nil {
			b.Fatal(err)
		}
	}
}
