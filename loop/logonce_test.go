package loop_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
	"github.com/cordis-agent/cordis/sessionlog"
)

// markedNotes writes a file of n lines that each hold marker, so that
// the copies of a Read of it can be counted in a log or a request.
func markedNotes(t *testing.T, dir, marker string, n int) string {
	t.Helper()
	path := filepath.Join(dir, "notes.txt")
	os.WriteFile(path, []byte(strings.Repeat(marker+" \"quoted\"\tline\n", n)), 0o644)
	return path
}

// reloadAndAsk loads sid in a new agent over the same state, checks that
// the replayed card of call holds the n marked lines, runs one more turn
// and returns the request it sent.
func reloadAndAsk(t *testing.T, state, cwd, sid, call, marker string, n int) string {
	t.Helper()
	h := looptest.NewHarness(t, looptest.Options{Config: func(c *loop.Config) { c.StateDir = state }}, looptest.ReplyText("again"))
	if err := h.Editor.Call(h.Ctx, acp.MethodSessionLoad, acp.LoadSessionRequest{SessionID: sid, Cwd: cwd, MCPServers: []acp.MCPServer{}}, &acp.LoadSessionResponse{}); err != nil {
		t.Fatal(err)
	}
	var card string
	for _, u := range h.Editor.Updates(sid) {
		if u, ok := u.(*acp.ToolCallUpdate); ok && u.ToolCallID == call {
			for _, c := range u.Content {
				if c.Content != nil {
					card += c.Content.Text
				}
			}
		}
	}
	if got := strings.Count(card, marker); got != n {
		t.Errorf("the replayed card of %s holds %d marked lines, want %d: %q", call, got, n, card)
	}
	h.Prompt(sid, "and now?")
	reqs := h.Model.Requests()
	body, _ := json.Marshal(reqs[len(reqs)-1]["messages"])
	return string(body)
}

// TestToolOutputLoggedOnce: a tool's output is in the session log once
// (in its tool/result event; the message to the model names it, as a
// version-2 line), yet session/load replays the card with the output
// and the next request carries it to the model whole, as before.
func TestToolOutputLoggedOnce(t *testing.T) {
	const marker, lines = "marker-7f3a", 300
	h := looptest.NewHarness(t, looptest.Options{},
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_read", "Read", map[string]any{"file_path": "notes.txt"})),
		looptest.ReplyText("read it"))
	markedNotes(t, h.Cwd, marker, lines)
	sid := h.NewSession()
	h.Prompt(sid, "read the notes")
	closeSession(t, h, sid)

	data, err := os.ReadFile(sessionlog.Path(h.StateDir, sid))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(data), marker); got != lines {
		t.Errorf("the log holds %d marked lines, want %d (the output once)", got, lines)
	}
	var named bool
	for _, ev := range logEvents(t, h.StateDir, sid, "") {
		if ev.Type == sessionlog.TypeMessage && strings.Contains(string(ev.Data), `"toolOutputs":["toolu_read"]`) {
			named = ev.V == 2
		}
	}
	if !named {
		t.Errorf("no version-2 message names toolu_read's output:\n%s", data)
	}

	body := reloadAndAsk(t, h.StateDir, h.Cwd, sid, "toolu_read", marker, lines)
	if got := strings.Count(body, marker); got != lines {
		t.Errorf("the request after load carries %d marked lines, want %d", got, lines)
	}
}

// TestLoadsToolOutputsOfVersion1Logs: a log written before outputs were
// stored once (version 1: the output in tool/result's output and
// content, and again in the message) loads as it did: the card is
// replayed and the model gets the output once.
func TestLoadsToolOutputsOfVersion1Logs(t *testing.T) {
	const marker, lines = "marker-0ld1", 50
	state, cwd := t.TempDir(), t.TempDir()
	output := strings.Repeat(marker+" line\n", lines)
	sid := "sess_v1toolsoutputs0000000000"
	w, err := sessionlog.Create(sessionlog.Path(state, sid))
	if err != nil {
		t.Fatal(err)
	}
	text := func(s string) []map[string]any { return []map[string]any{{"type": "text", "text": s}} }
	for _, ev := range []struct {
		typ  string
		data any
	}{
		{sessionlog.TypeSessionStart, map[string]any{"sessionId": sid, "cwd": cwd, "model": "claude-test", "mode": "default"}},
		{sessionlog.TypeTurnStart, map[string]any{"turnId": "turn-1", "prompt": "read the notes"}},
		{sessionlog.TypeUserPrompt, map[string]any{"turnId": "turn-1", "content": text("read the notes")}},
		{sessionlog.TypeMessage, map[string]any{"role": "user", "content": text("read the notes")}},
		{sessionlog.TypeMessage, map[string]any{"role": "assistant", "content": []map[string]any{{"type": "tool_use", "id": "toolu_old", "name": "Read", "input": map[string]any{"file_path": "notes.txt"}}}}},
		{sessionlog.TypeToolCall, map[string]any{"toolCallId": "toolu_old", "name": "Read", "title": "Read notes.txt", "kind": "read", "input": map[string]any{"file_path": "notes.txt"}}},
		{sessionlog.TypeToolResult, map[string]any{"toolCallId": "toolu_old", "status": "completed", "output": output,
			"content": []map[string]any{{"type": "content", "content": map[string]any{"type": "text", "text": output}}}}},
		{sessionlog.TypeMessage, map[string]any{"role": "user", "content": []map[string]any{{"type": "tool_result", "tool_use_id": "toolu_old", "content": text(output)}}}},
		{sessionlog.TypeMessage, map[string]any{"role": "assistant", "content": text("read it")}},
		{sessionlog.TypeTurnEnd, map[string]any{"turnId": "turn-1", "stopReason": "end_turn"}},
	} {
		if e, err := w.Append(ev.typ, ev.data); err != nil || e.V != 1 {
			t.Fatalf("append %s: v%d, %v", ev.typ, e.V, err)
		}
	}
	w.Close()

	body := reloadAndAsk(t, state, cwd, sid, "toolu_old", marker, lines)
	if got := strings.Count(body, marker); got != lines {
		t.Errorf("the request after load carries %d marked lines, want %d", got, lines)
	}
}
