package loop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/acp/acptest"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/llm/openai"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
)

// preToolUseLog counts the PreToolUse seam's calls by tool_use_id: a
// cut-off call must never get that far.
type preToolUseLog struct {
	mu  sync.Mutex
	ids []string
}

func (l *preToolUseLog) seams() hooks.Seams {
	return hookFunc(func(_ context.Context, in *hooks.Input) hooks.Decision {
		if in.Event == hooks.PreToolUse {
			l.mu.Lock()
			l.ids = append(l.ids, in.ToolUseID)
			l.mu.Unlock()
		}
		return hooks.Decision{}
	})
}

func (l *preToolUseLog) saw(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, x := range l.ids {
		if x == id {
			return true
		}
	}
	return false
}

// checkCutOffRefused checks what the editor saw of a cut-off call: it
// failed, with the reason.
func checkCutOffRefused(t *testing.T, ups []acp.SessionUpdate, id string) {
	t.Helper()
	last := lastUpdate(t, ups, id)
	if last.Status != acp.ToolStatusFailed || !strings.Contains(updateText(last), "cut off by the output token limit") {
		t.Fatalf("the editor's last update of the cut-off call = %+v", last)
	}
}

// TestAnthropicToolCallCutOffByMaxTokensIsNotRun: a response that stops
// on max_tokens while a Write's input is still streaming. Even in
// bypassPermissions mode the Write reaches neither PreToolUse nor the
// tool; a complete call before it runs; the next request answers both
// (is_error for the cut-off one, saying why and how to retry).
func TestAnthropicToolCallCutOffByMaxTokensIsNotRun(t *testing.T) {
	var pre preToolUseLog
	var cwd string
	cutOff := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		complete, _ := json.Marshal(map[string]any{"file_path": filepath.Join(cwd, "complete.txt"), "content": "all of it"})
		partial := fmt.Sprintf(`{"file_path": %q, "content": "the first half of the fi`, filepath.Join(cwd, "cut.txt"))
		looptest.SSEEvent(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
			"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test", "content": []any{},
			"usage": map[string]any{"input_tokens": 100, "output_tokens": 1}}})
		for i, call := range []struct{ id, input string }{{"toolu_done", string(complete)}, {"toolu_cut", partial}} {
			looptest.SSEEvent(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": call.id, "name": "Write", "input": map[string]any{}}})
			looptest.SSEEvent(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": call.input}})
			looptest.SSEEvent(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
		}
		looptest.SSEEvent(w, "message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "max_tokens"}, "usage": map[string]any{"output_tokens": 8192}})
		looptest.SSEEvent(w, "message_stop", map[string]any{"type": "message_stop"})
	}
	h := looptest.NewHarness(t, looptest.Options{Hooks: pre.seams(), Mode: loop.ModeBypass}, cutOff, looptest.ReplyText("I will write it in parts."))
	cwd = h.Cwd
	h.Editor.OnPermission = neverAsk(t)
	sid := h.NewSession()
	if stop := h.Prompt(sid, "write two files"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}

	if _, err := os.Stat(filepath.Join(cwd, "cut.txt")); err == nil {
		t.Fatal("the cut-off Write wrote a file")
	}
	if pre.saw("toolu_cut") {
		t.Error("the cut-off call reached PreToolUse")
	}
	if _, err := os.Stat(filepath.Join(cwd, "complete.txt")); err != nil {
		t.Errorf("the complete call before the cut did not run: %v", err)
	}
	reqs := h.Model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	text, isErr := looptest.ToolResult(t, reqs[1], "toolu_cut")
	if !isErr || !strings.Contains(text, "cut off by the output token limit") || !strings.Contains(text, "not run") || !strings.Contains(text, "in parts") {
		t.Fatalf("tool_result of the cut-off call = %q (error %v)", text, isErr)
	}
	if _, isErr := looptest.ToolResult(t, reqs[1], "toolu_done"); isErr {
		t.Error("the complete call failed")
	}
	checkCutOffRefused(t, h.Editor.Updates(sid), "toolu_cut")
}

// TestOpenAIToolCallCutOffByLengthIsNotRun: the same over Chat
// Completions, where the limit is finish_reason "length".
func TestOpenAIToolCallCutOffByLengthIsNotRun(t *testing.T) {
	var mu sync.Mutex
	var bodies []map[string]any
	cwd := t.TempDir()
	chunk := func(w io.Writer, v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		bodies = append(bodies, body)
		n := len(bodies)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		if n == 1 {
			partial := fmt.Sprintf(`{"file_path": %q, "content": "the first half`, filepath.Join(cwd, "cut.txt"))
			chunk(w, map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "tool_calls": []any{
				map[string]any{"index": 0, "id": "call_cut", "type": "function", "function": map[string]any{"name": "Write", "arguments": partial}}}}}}})
			chunk(w, map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": "length"}}})
		} else {
			chunk(w, map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": "I will write it in parts."}, "finish_reason": "stop"}}})
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()
	prov, err := openai.New(openai.Config{BaseURL: srv.URL, Model: "gpt-test", APIKeyEnv: "CORDIS_TEST_OPENAI_KEY"}, openai.WithGetenv(func(k string) string {
		if k == "CORDIS_TEST_OPENAI_KEY" {
			return "test"
		}
		return ""
	}))
	if err != nil {
		t.Fatal(err)
	}
	var pre preToolUseLog
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	e := acptest.Start(t, loop.New(loop.Config{Provider: prov, Model: "gpt-test", StateDir: t.TempDir(), Hooks: pre.seams(), DefaultMode: loop.ModeBypass}))
	e.OnPermission = neverAsk(t)
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, cwd).SessionID
	if stop, err := e.Prompt(ctx, sid, "write the file"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}

	if _, err := os.Stat(filepath.Join(cwd, "cut.txt")); err == nil {
		t.Fatal("the cut-off Write wrote a file")
	}
	if pre.saw("call_cut") {
		t.Error("the cut-off call reached PreToolUse")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 2 {
		t.Fatalf("%d requests, want 2", len(bodies))
	}
	var toolMsg map[string]any
	msgs, _ := bodies[1]["messages"].([]any)
	for _, m := range msgs {
		if mm := m.(map[string]any); mm["role"] == "tool" && mm["tool_call_id"] == "call_cut" {
			toolMsg = mm
		}
	}
	if toolMsg == nil || !strings.Contains(fmt.Sprint(toolMsg["content"]), "cut off by the output token limit") {
		t.Fatalf("the next request lacks the cut-off call's error result: %v", msgs)
	}
	checkCutOffRefused(t, e.Updates(sid), "call_cut")
}
