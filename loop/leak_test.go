package loop_test

import (
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
)

// Cancelling a turn in the middle of a model stream and in the middle of a
// tool leaves no goroutine behind once the editor disconnects.
func TestCancelLeavesNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	stall := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		looptest.SSEEvent(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "m", "type": "message", "role": "assistant", "model": "claude-test", "content": []any{}, "usage": map[string]any{"input_tokens": 1, "output_tokens": 1}}})
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
	sleeper := looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_s", "Bash", map[string]any{"command": "sleep 30"}))
	h := looptest.NewHarness(t, looptest.Options{Mode: loop.ModeBypass}, stall, sleeper)
	sid := h.NewSession()
	for i, wait := range []func() bool{
		func() bool { return len(h.Model.Requests()) == 1 },
		func() bool {
			for _, u := range toolUpdates(h.Editor.Updates(sid), "toolu_s") {
				if u.Status == acp.ToolStatusInProgress {
					return true
				}
			}
			return false
		},
	} {
		done := make(chan acp.StopReason, 1)
		go func() { stop, _ := h.Editor.Prompt(h.Ctx, sid, "go"); done <- stop }()
		waitFor(t, wait)
		h.Editor.Notify(h.Ctx, acp.MethodSessionCancel, acp.CancelNotification{SessionID: sid})
		if stop := <-done; stop != acp.StopCancelled {
			t.Fatalf("cancel %d: stop = %q", i, stop)
		}
	}
	h.Editor.Close()
	h.Model.Close()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			n := runtime.Stack(buf, true)
			t.Fatalf("%d goroutines before, %d after cancel and disconnect:\n%s", before, runtime.NumGoroutine(), filterStacks(string(buf[:n])))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// filterStacks keeps the goroutines that run cordis code.
func filterStacks(all string) string {
	var keep []string
	for _, g := range strings.Split(all, "\n\n") {
		if strings.Contains(g, "cordis-agent/cordis/") && !strings.Contains(g, "TestCancelLeavesNoGoroutines") {
			keep = append(keep, g)
		}
	}
	return strings.Join(keep, "\n\n")
}
