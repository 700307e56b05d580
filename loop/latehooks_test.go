package loop_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
)

// TestLateHookContextReachesTheNextRequest: what a background hook
// reports while a turn runs goes into the very next model request, after
// the step's tool results (not into the request before it, nor only into
// the next prompt), and is recorded as an asyncHook notice.
func TestLateHookContextReachesTheNextRequest(t *testing.T) {
	pipe := hooks.NewPipeline()
	pipe.Register(hooks.PostToolUse, hooks.Func("late", func(ctx context.Context, in *hooks.Input) (hooks.Decision, error) {
		if in.Later == nil {
			t.Error("the seam's input has no Later")
			return hooks.Decision{}, nil
		}
		delivered := make(chan struct{})
		in.Later.Go(func(context.Context) {
			defer close(delivered)
			in.Later.Deliver(hooks.LateResult{Event: in.Event, Hook: "test hook", Context: []string{"LATE-REPORT"}})
		})
		// The hook returns once its background work reported, so that
		// the report is queued before the step's results are assembled.
		<-delivered
		return hooks.Decision{}, nil
	}), hooks.RegisterOptions{})
	h := looptest.NewHarness(t, looptest.Options{Hooks: pipe, Mode: loop.ModeBypass},
		looptest.StreamBlocks("tool_use", bashEcho("toolu_1", "hi")),
		looptest.ReplyText("ok"))
	sid := h.NewSession()
	if stop := h.Prompt(sid, "x"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	reqs := h.Model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	first, _ := json.Marshal(reqs[0])
	second, _ := json.Marshal(reqs[1])
	if strings.Contains(string(first), "LATE-REPORT") || !strings.Contains(string(second), "LATE-REPORT") {
		t.Fatalf("the report should reach the second request only:\n%s\n%s", first, second)
	}
	notices := logData(logEvents(t, h.StateDir, sid, ""), "notice")
	found := false
	for _, n := range notices {
		found = found || n["kind"] == "asyncHook" && n["hook"] == "test hook"
	}
	if !found {
		t.Fatalf("no asyncHook notice in %v", notices)
	}
}
