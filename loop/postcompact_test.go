package loop_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
)

// A PostCompact hook runs after a compaction in the middle of a turn,
// with the summary and trigger auto; its `continue: false` (Codex) keeps
// the compaction and ends the turn before the next request.
func TestPostCompactAfterMidTurnCompactionCanEndTheTurn(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	seams := hookFunc(func(_ context.Context, in *hooks.Input) hooks.Decision {
		if in.Event != hooks.PostCompact {
			return hooks.Decision{}
		}
		mu.Lock()
		seen = append(seen, in.Trigger+"|"+in.TurnID+"|"+in.CompactSummary)
		mu.Unlock()
		return hooks.Decision{StopTurn: true, StopReason: "compacted; stopping here"}
	})
	h := looptest.NewHarness(t, looptest.Options{Hooks: seams, Mode: loop.ModeBypass, Config: smallWindow})
	one, two := bigFiles(t, h.Cwd)
	h.Model.Append(
		looptest.Reply{Stop: "tool_use", InputTokens: 3000, Blocks: []looptest.Block{looptest.ToolUse("toolu_1", "Read", map[string]any{"file_path": one})}}.Handler(),
		looptest.Reply{Stop: "tool_use", InputTokens: 13000, Blocks: []looptest.Block{looptest.ToolUse("toolu_2", "Read", map[string]any{"file_path": two})}}.Handler(),
		looptest.ReplyText("SUMMARY: one.txt was read."),
		looptest.ReplyText("never asked for"),
	)
	sid := h.NewSession()
	if stop := h.Prompt(sid, "Read one.txt and two.txt."); stop != acp.StopEndTurn {
		t.Fatalf("stop = %s", stop)
	}
	if n := len(h.Model.Requests()); n != 3 {
		t.Fatalf("%d requests, want 3 (two steps and the summary; the hook ended the turn)", n)
	}
	mu.Lock()
	got := strings.Join(seen, ",")
	mu.Unlock()
	if got != "auto|turn-1|SUMMARY: one.txt was read." {
		t.Fatalf("PostCompact inputs = %q", got)
	}
	text := looptest.AgentText(h.Editor.Updates(sid))
	if !strings.Contains(text, "so the conversation was compacted") || !strings.Contains(text, "A hook ended the turn: compacted; stopping here") {
		t.Fatalf("editor text: %q", text)
	}
}

// A compaction that a PreCompact hook blocks has no PostCompact.
func TestNoPostCompactWhenPreCompactBlocks(t *testing.T) {
	var mu sync.Mutex
	var events []string
	seams := hookFunc(func(_ context.Context, in *hooks.Input) hooks.Decision {
		mu.Lock()
		events = append(events, string(in.Event))
		mu.Unlock()
		if in.Event == hooks.PreCompact {
			return hooks.Decision{Block: true, Reason: "not now"}
		}
		return hooks.Decision{}
	})
	h := looptest.NewHarness(t, looptest.Options{Hooks: seams}, looptest.ReplyText("first answer"))
	sid := h.NewSession()
	h.Prompt(sid, "first question")
	h.Prompt(sid, "/compact")
	mu.Lock()
	defer mu.Unlock()
	for _, e := range events {
		if e == string(hooks.PostCompact) {
			t.Fatalf("PostCompact ran after a blocked compaction: %q", events)
		}
	}
}

// Cancelling a running turn runs the Interrupt seam (Codex's event) with
// the turn's id before the prompt is answered; a turn that ends by itself
// does not.
func TestInterruptRunsWhenARunningTurnIsCancelled(t *testing.T) {
	var mu sync.Mutex
	var interrupts []string
	seams := hookFunc(func(ctx context.Context, in *hooks.Input) hooks.Decision {
		if in.Event == hooks.Interrupt {
			mu.Lock()
			alive := ctx.Err() == nil
			interrupts = append(interrupts, in.TurnID+"|"+in.PermissionMode)
			mu.Unlock()
			if !alive {
				t.Error("the Interrupt hooks got the turn's cancelled context")
			}
			return hooks.Decision{SystemMessages: []string{"noted the interruption"}}
		}
		return hooks.Decision{}
	})
	h := looptest.NewHarness(t, looptest.Options{Hooks: seams}, looptest.ReplyText("a normal answer"), partialThinking(""))
	sid := h.NewSession()
	h.Prompt(sid, "hello")
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
	mu.Lock()
	got := strings.Join(interrupts, ",")
	mu.Unlock()
	if got != "turn-2|default" {
		t.Fatalf("Interrupt ran for %q, want once for turn-2", got)
	}
	if text := looptest.AgentText(h.Editor.Updates(sid)); !strings.Contains(text, "noted the interruption") {
		t.Errorf("the hook's system message was not shown: %q", text)
	}
}
