package loop_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/loop/looptest"
)

// partialThinking streams the start of a thinking block (no signature
// yet), then stalls until the client goes or, with errType, fails with an
// error event.
func partialThinking(errType string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		messageStart(w)
		looptest.SSEEvent(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "thinking", "thinking": ""}})
		looptest.SSEEvent(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "thinking_delta", "thinking": "Let me weigh"}})
		w.(http.Flusher).Flush()
		if errType != "" {
			looptest.SSEEvent(w, "error", map[string]any{"type": "error", "error": map[string]any{"type": errType, "message": "Overloaded"}})
			return
		}
		<-r.Context().Done()
	}
}

func usageUpdates(updates []acp.SessionUpdate) int {
	n := 0
	for _, u := range updates {
		if _, ok := u.(*acp.UsageUpdate); ok {
			n++
		}
	}
	return n
}

// requestHasNoCutThinking fails when a request resends a thinking block
// without its signature: the API answers 400 to it, on every later turn.
func requestHasNoCutThinking(t *testing.T, req map[string]any) {
	t.Helper()
	raw, _ := json.Marshal(req["messages"])
	if strings.Contains(string(raw), "Let me weigh") || strings.Contains(string(raw), `"signature":""`) {
		t.Errorf("the cut-off thinking block was resent: %s", raw)
	}
}

// Cancelled mid-thought: the unsigned block is not kept, and the tokens
// the stream reported are billed (usage_update).
func TestCancelMidThinking(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{}, partialThinking(""), looptest.ReplyText("fresh start"))
	sid := h.NewSession()
	done := make(chan acp.StopReason, 1)
	go func() { done <- h.Prompt(sid, "think hard") }()
	waitFor(t, func() bool {
		for _, u := range h.Editor.Updates(sid) {
			if _, ok := u.(*acp.AgentThoughtChunk); ok {
				return true
			}
		}
		return false
	})
	h.Editor.Notify(h.Ctx, acp.MethodSessionCancel, acp.CancelNotification{SessionID: sid})
	select {
	case stop := <-done:
		if stop != acp.StopCancelled {
			t.Fatalf("stop = %q, want cancelled", stop)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the turn did not end after session/cancel")
	}
	if n := usageUpdates(h.Editor.Updates(sid)); n != 1 {
		t.Errorf("%d usage_update after the cancelled step, want 1 (its input tokens were spent)", n)
	}
	h.Prompt(sid, "again")
	reqs := h.Model.Requests()
	requestHasNoCutThinking(t, reqs[len(reqs)-1])
	h.Model.CheckAllUsed()
}

// An error event mid-thought: the prompt is answered with a JSON-RPC
// error, the step is billed, the unsigned block is not kept, and the next
// request says the first prompt got no answer instead of merging the two
// silently.
func TestErrorMidThinking(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{}, partialThinking("overloaded_error"), looptest.ReplyText("fresh start"))
	sid := h.NewSession()
	_, err := h.Editor.Prompt(h.Ctx, sid, "think hard")
	if err == nil || !strings.Contains(err.Error(), "overloaded") || !strings.Contains(err.Error(), "-32603") {
		t.Fatalf("prompt answered %v, want JSON-RPC error -32603 naming the overload", err)
	}
	if n := usageUpdates(h.Editor.Updates(sid)); n != 1 {
		t.Errorf("%d usage_update after the failed step, want 1", n)
	}
	h.Prompt(sid, "again")
	reqs := h.Model.Requests()
	last := reqs[len(reqs)-1]
	requestHasNoCutThinking(t, last)
	raw, _ := json.Marshal(last["messages"])
	if !strings.Contains(string(raw), "failed (overloaded), so it got no answer") {
		t.Errorf("the next request does not say the first prompt got no answer: %s", raw)
	}
}

// An empty or whitespace-only prompt is refused with invalid params; an
// image type the APIs do not take, too. Neither reaches the model.
func TestPromptsTheModelWouldRefuse(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{})
	sid := h.NewSession()
	for _, prompt := range [][]acp.ContentBlock{
		{acp.TextBlock("   \n\t")},
		{{Type: "image", MimeType: "image/bmp", Data: "Qk0="}},
	} {
		var resp acp.PromptResponse
		err := h.Editor.Call(h.Ctx, acp.MethodSessionPrompt, acp.PromptRequest{SessionID: sid, Prompt: prompt}, &resp)
		if err == nil || !strings.Contains(err.Error(), "-32602") {
			t.Errorf("prompt %+v answered %v, want invalid params (-32602)", prompt, err)
		}
		t.Logf("%v", err)
	}
	if n := len(h.Model.Requests()); n != 0 {
		t.Errorf("%d model requests, want none", n)
	}
}
