package loop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/acp/acptest"
	"github.com/cordis-agent/cordis/llm/openai"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
)

// A full turn over the OpenAI Chat Completions wire: a streamed tool call
// split across chunks, a permission request, then a text answer.
func TestOpenAIWireTurnWithToolCall(t *testing.T) {
	var mu sync.Mutex
	var bodies []map[string]any
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
			chunk(w, map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "tool_calls": []any{
				map[string]any{"index": 0, "id": "call_1", "type": "function", "function": map[string]any{"name": "Bash", "arguments": `{"comm`}}}}}}})
			chunk(w, map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"tool_calls": []any{
				map[string]any{"index": 0, "function": map[string]any{"arguments": `and":"echo from-openai"}`}}}}}}})
			chunk(w, map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": "tool_calls"}}})
		} else {
			chunk(w, map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": "It printed "}}}})
			chunk(w, map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": "from-openai."}, "finish_reason": "stop"}}})
		}
		chunk(w, map[string]any{"choices": []any{}, "usage": map[string]any{"prompt_tokens": 50, "completion_tokens": 7}})
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
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	e := acptest.Start(t, loop.New(loop.Config{Provider: prov, Model: "gpt-test", StateDir: t.TempDir()}))
	e.OnPermission = looptest.Allow(acp.PermAllowOnce)
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, t.TempDir()).SessionID
	stop, err := e.Prompt(ctx, sid, "run it")
	if err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	if got := looptest.AgentText(e.Updates(sid)); got != "It printed from-openai." {
		t.Fatalf("agent text = %q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 2 {
		t.Fatalf("%d requests", len(bodies))
	}
	msgs, _ := json.Marshal(bodies[1]["messages"])
	if !strings.Contains(string(msgs), `"tool_call_id":"call_1"`) || !strings.Contains(string(msgs), "from-openai") {
		t.Fatalf("the tool result was not sent back: %s", msgs)
	}
}
