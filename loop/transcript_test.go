package loop_test

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/cordis-agent/cordis/hooks"
)

// Hooks get a transcript_path that holds the conversation in Claude
// Code's JSONL shape, as real hook scripts expect.
func TestHooksSeeAClaudeShapedTranscript(t *testing.T) {
	var mu sync.Mutex
	var stopTranscript string
	seams := hookFunc(func(ctx context.Context, in *hooks.Input) hooks.Decision {
		if in.Event == hooks.Stop {
			data, _ := os.ReadFile(in.TranscriptPath)
			mu.Lock()
			stopTranscript = string(data)
			mu.Unlock()
		}
		return hooks.Decision{}
	})
	h := newHarness(t, harnessOpts{hooks: seams}, replyText("the answer"))
	h.prompt(h.newSession(), "the question")
	mu.Lock()
	defer mu.Unlock()
	lines := strings.Split(strings.TrimSpace(stopTranscript), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"type":"user"`) || !strings.Contains(lines[0], "the question") ||
		!strings.Contains(lines[1], `"type":"assistant"`) || !strings.Contains(lines[1], "the answer") {
		t.Fatalf("transcript at Stop:\n%s", stopTranscript)
	}
}
