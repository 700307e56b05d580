package loop_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/internal/secrets"
	"github.com/cordis-agent/cordis/loop/looptest"
)

// The end of streamed text that could start a key is held back until the
// next delta decides it (issue 27, finding 10), and a cancel does not
// lose it: the turn's text ends with it, after what was shown, in order.
// Not parallel: secrets' values are the process's.
func TestHeldBackTextIsShownOnCancel(t *testing.T) {
	const key = "KEY-ZQ-0123456789-SECRET"
	secrets.Register("TEST_KEY", key)
	t.Cleanup(secrets.Reset)
	stalled := func(w http.ResponseWriter, r *http.Request) {
		partialText(w, "Hello, the key is KEY-Z")
		<-r.Context().Done()
	}
	h := looptest.NewHarness(t, looptest.Options{}, stalled)
	sid := h.NewSession()
	done := make(chan acp.StopReason, 1)
	go func() { done <- h.Prompt(sid, "go") }()
	text := func() string {
		var b strings.Builder
		for _, u := range h.Editor.Updates(sid) {
			if c, ok := u.(*acp.AgentMessageChunk); ok {
				b.WriteString(c.Content.Text)
			}
		}
		return b.String()
	}
	waitFor(t, func() bool { return text() != "" })
	if got := text(); got != "Hello, the key is " {
		t.Fatalf("shown while the stream stalls: %q, want the possible start of the key held back", got)
	}
	h.Editor.Notify(h.Ctx, acp.MethodSessionCancel, acp.CancelNotification{SessionID: sid})
	if stop := <-done; stop != acp.StopCancelled {
		t.Fatalf("stop = %q, want cancelled", stop)
	}
	if got := text(); got != "Hello, the key is KEY-Z" {
		t.Errorf("shown after the cancel: %q, want the held text too", got)
	}
}
