package loop_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
)

// notifications records the Notification seam's inputs and signals each.
type notifications struct {
	mu   sync.Mutex
	seen []hooks.Input
	ch   chan hooks.Input
}

func (n *notifications) Run(_ context.Context, in *hooks.Input) hooks.Decision {
	if in.Event != hooks.Notification {
		return hooks.Decision{}
	}
	n.mu.Lock()
	n.seen = append(n.seen, *in)
	n.mu.Unlock()
	n.ch <- *in
	return hooks.Decision{}
}

func (n *notifications) count() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.seen)
}

// A permission request left unanswered notifies permission_prompt; the
// editor here answers only once the notification ran (a barrier, no
// timing), so the test cannot pass without it.
func TestPermissionPromptNotification(t *testing.T) {
	n := &notifications{ch: make(chan hooks.Input, 4)}
	h := looptest.NewHarness(t, looptest.Options{Hooks: n, Config: func(c *loop.Config) {
		c.PermissionNotifyAfter = time.Millisecond
		c.IdleNotifyAfter = -1
	}},
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_1", "Bash", map[string]any{"command": "true"})),
		looptest.ReplyText("done"))
	h.Editor.OnPermission = func(ctx context.Context, _ *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		select {
		case in := <-n.ch:
			if in.NotificationType != "permission_prompt" || in.Message != "cordis needs your permission to use Bash" {
				t.Errorf("notification %q %q", in.NotificationType, in.Message)
			}
		case <-ctx.Done():
			t.Error("no permission_prompt notification while the request waited")
		}
		return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: acp.PermAllowOnce}}, nil
	}
	if stop := h.Prompt(h.NewSession(), "run it"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
}

// An answer that comes before the wait is over notifies nothing.
func TestNoNotificationWhenAnsweredInTime(t *testing.T) {
	n := &notifications{ch: make(chan hooks.Input, 4)}
	h := looptest.NewHarness(t, looptest.Options{Hooks: n, Config: func(c *loop.Config) {
		c.PermissionNotifyAfter = time.Hour
		c.IdleNotifyAfter = time.Hour
	}},
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_1", "Bash", map[string]any{"command": "true"})),
		looptest.ReplyText("done"),
		looptest.ReplyText("again"))
	h.Editor.OnPermission = looptest.Allow(acp.PermAllowOnce)
	sid := h.NewSession()
	h.Prompt(sid, "run it")
	h.Prompt(sid, "and again") // disarms the first turn's idle notification
	if c := n.count(); c != 0 {
		t.Errorf("%d notifications, want none", c)
	}
}

// After a turn, the agent waiting for a new prompt notifies idle_prompt.
func TestIdlePromptNotification(t *testing.T) {
	n := &notifications{ch: make(chan hooks.Input, 4)}
	h := looptest.NewHarness(t, looptest.Options{Hooks: n, Config: func(c *loop.Config) {
		c.IdleNotifyAfter = time.Millisecond
	}}, looptest.ReplyText("done"))
	h.Prompt(h.NewSession(), "hello")
	select {
	case in := <-n.ch:
		if in.NotificationType != "idle_prompt" {
			t.Errorf("notification type %q, want idle_prompt", in.NotificationType)
		}
	case <-h.Ctx.Done():
		t.Fatal("no idle_prompt notification after the turn")
	}
}

// blockingNotifier is a Notification hook that, once started, waits for
// release (or for its context to end) and records which came first.
type blockingNotifier struct {
	started, release chan struct{}
	stoppedEarly     chan bool
}

func (b *blockingNotifier) Run(ctx context.Context, in *hooks.Input) hooks.Decision {
	if in.Event != hooks.Notification {
		return hooks.Decision{}
	}
	close(b.started)
	select {
	case <-b.release:
		b.stoppedEarly <- false
	case <-ctx.Done():
		b.stoppedEarly <- true
	}
	return hooks.Decision{}
}

// A permission_prompt notification that has started runs to its end when
// the user answers meanwhile: its context is not cancelled (a notifier
// stopped mid-way would leave a message half sent), and the turn goes on
// once it is over. Before the fix the answer cancelled the running hook
// at once, well before the release below.
func TestStartedNotificationRunsToItsEnd(t *testing.T) {
	b := &blockingNotifier{started: make(chan struct{}), release: make(chan struct{}), stoppedEarly: make(chan bool, 1)}
	h := looptest.NewHarness(t, looptest.Options{Hooks: b, Config: func(c *loop.Config) {
		c.PermissionNotifyAfter = time.Millisecond
		c.IdleNotifyAfter = -1
	}},
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_1", "Bash", map[string]any{"command": "true"})),
		looptest.ReplyText("done"))
	h.Editor.OnPermission = func(ctx context.Context, _ *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		select {
		case <-b.started:
		case <-ctx.Done():
			t.Error("no permission_prompt notification while the request waited")
		}
		// The answer goes out now; the hook is released a while later, so
		// an answer that cancelled it would be seen first.
		time.AfterFunc(100*time.Millisecond, func() { close(b.release) })
		return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: acp.PermAllowOnce}}, nil
	}
	if stop := h.Prompt(h.NewSession(), "run it"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	select {
	case early := <-b.stoppedEarly:
		if early {
			t.Error("the running Notification hook was cancelled when the user answered")
		}
	default:
		t.Error("the turn went on before the running Notification hook ended")
	}
}
