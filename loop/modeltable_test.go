package loop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/acp/acptest"
	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/llm/anthropic"
	"github.com/cordis-agent/cordis/llm/openai"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
)

// usageOf returns the session's usage_update notifications.
func usageOf(e *acptest.Editor, sid string) []*acp.UsageUpdate {
	var out []*acp.UsageUpdate
	for _, u := range e.Updates(sid) {
		if uu, ok := u.(*acp.UsageUpdate); ok {
			out = append(out, uu)
		}
	}
	return out
}

// The context meter's size is the current model's window from the model
// table, and it changes when /model switches; the cost uses the table's
// prices.
func TestUsageSizeFollowsTheModel(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{
		Anthropic: anthropic.Config{Model: "claude-opus-4-6"},
		Config:    func(c *loop.Config) { c.Models = []string{"claude-opus-4-6", "claude-haiku-4-5"} },
	}, looptest.Reply{Stop: "end_turn", Model: "claude-opus-4-6", InputTokens: 1000, Blocks: []looptest.Block{looptest.Text("hi")}}.Handler())
	sid := h.NewSession()
	h.Prompt(sid, "hello")
	ups := usageOf(h.Editor, sid)
	if len(ups) != 1 || ups[0].Size != 1_000_000 || ups[0].Used != 1020 {
		t.Fatalf("usage updates = %+v", ups)
	}
	// 1000 input and 20 output tokens at $5 and $25 per million.
	if want := (1000*5 + 20*25) / 1e6; ups[0].Cost == nil || math.Abs(ups[0].Cost.Amount-want) > 1e-9 {
		t.Fatalf("cost = %+v, want %v", ups[0].Cost, want)
	}
	h.Prompt(sid, "/model claude-haiku-4-5")
	ups = usageOf(h.Editor, sid)
	if last := ups[len(ups)-1]; len(ups) != 2 || last.Size != 200_000 || last.Used != 1020 {
		t.Fatalf("after /model: %+v", ups)
	}
}

// The agent's contextWindow caps every model's window, and a table
// override reaches usage_update and the price.
func TestModelTableOverridesAndCap(t *testing.T) {
	table, err := llm.NewModelTable(map[string]llm.ModelSpec{"claude-test": {ContextWindow: 50_000, InputPrice: ptr(1.0), OutputPrice: ptr(1.0)}})
	if err != nil {
		t.Fatal(err)
	}
	h := looptest.NewHarness(t, looptest.Options{Config: func(c *loop.Config) { c.ModelTable = table }}, looptest.ReplyText("hi"))
	sid := h.NewSession()
	h.Prompt(sid, "hello")
	if ups := usageOf(h.Editor, sid); len(ups) != 1 || ups[0].Size != 50_000 || ups[0].Cost == nil || ups[0].Cost.Amount != 120/1e6 {
		t.Fatalf("usage updates = %+v", ups)
	}
	h2 := looptest.NewHarness(t, looptest.Options{Config: func(c *loop.Config) { c.ModelTable, c.ContextWindow = table, 30_000 }}, looptest.ReplyText("hi"))
	sid = h2.NewSession()
	h2.Prompt(sid, "hello")
	if ups := usageOf(h2.Editor, sid); len(ups) != 1 || ups[0].Size != 30_000 {
		t.Fatalf("capped: %+v", ups)
	}
}

func ptr[T any](v T) *T { return &v }

// OpenAI's context_length_exceeded (GPT-5's wording, which names no
// "context length") is recovered from like Anthropic's: compacted, sent
// again, the turn goes on.
func TestOpenAIContextLengthExceededCompactsAndRetries(t *testing.T) {
	var mu sync.Mutex
	var bodies []map[string]any
	chunk := func(w io.Writer, v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	text := func(w http.ResponseWriter, s string) {
		w.Header().Set("Content-Type", "text/event-stream")
		chunk(w, map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": s}, "finish_reason": "stop"}}})
		chunk(w, map[string]any{"choices": []any{}, "usage": map[string]any{"prompt_tokens": 50, "completion_tokens": 7}})
		io.WriteString(w, "data: [DONE]\n\n")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		bodies = append(bodies, body)
		n := len(bodies)
		mu.Unlock()
		switch n {
		case 1:
			text(w, "answer 1")
		case 2:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":{"message":"Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in 280000 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`)
		case 3:
			text(w, "SUMMARY of the first exchange")
		default:
			text(w, "answer after compaction")
		}
	}))
	defer srv.Close()
	prov, err := openai.New(openai.Config{BaseURL: srv.URL, Model: "gpt-5", APIKeyEnv: "CORDIS_TEST_OPENAI_KEY", MaxRetries: -1}, openai.WithGetenv(func(k string) string {
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
	e := acptest.Start(t, loop.New(loop.Config{Provider: prov, Model: "gpt-5", StateDir: t.TempDir()}))
	e.Initialize(ctx, acp.ClientCapabilities{})
	sid := e.NewSession(ctx, t.TempDir()).SessionID
	if _, err := e.Prompt(ctx, sid, "first"); err != nil {
		t.Fatal(err)
	}
	stop, err := e.Prompt(ctx, sid, "second")
	if err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 4 {
		t.Fatalf("%d requests, want 4 (the first answer, the refused one, the summary, the retry)", len(bodies))
	}
	msgs, _ := json.Marshal(bodies[3]["messages"])
	if !strings.Contains(string(msgs), "SUMMARY of the first exchange") || !strings.Contains(string(msgs), "second") {
		t.Fatalf("the retried request: %s", msgs)
	}
	if got := looptest.AgentText(e.Updates(sid)); !strings.Contains(got, "refused the request as too long") || !strings.HasSuffix(got, "answer after compaction") {
		t.Fatalf("agent text = %q", got)
	}
}
