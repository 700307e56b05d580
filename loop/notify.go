package loop

import (
	"context"
	"sync"
	"time"

	"github.com/cordis-agent/cordis/hooks"
)

// The Notification seam tells hooks the user is wanted, as Claude Code
// does: permission_prompt when a permission request has waited a while
// unanswered, idle_prompt when the agent has waited for a new prompt a
// while after a turn. Its hooks observe only; nothing they decide applies.

const (
	// defaultPermissionNotifyAfter is how long a permission request waits
	// unanswered before permission_prompt (Claude Code: about six seconds).
	defaultPermissionNotifyAfter = 6 * time.Second
	// defaultIdleNotifyAfter is how long the agent waits for a new prompt
	// after a turn before idle_prompt (Claude Code: 60 seconds).
	defaultIdleNotifyAfter = 60 * time.Second
)

// notifyLater runs the Notification seam with typ and message after wait,
// unless the returned stop is called first. A notification already
// running when stop is called runs to its end (bounded by the hooks'
// timeouts and ctx): a notifier stopped because the user answered
// quickly would leave a message half sent. stop waits for it, so that no
// hook outlives the moment the caller moves on (a permission answer, a
// new prompt): the seam's runs are bounded by the caller's lifetime,
// never detached.
func (s *Session) notifyLater(ctx context.Context, wait time.Duration, typ, message string) (stop func()) {
	if wait < 0 {
		return func() {}
	}
	waiting, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	timer := time.NewTimer(wait)
	wg.Go(func() {
		select {
		case <-timer.C:
			s.runHook(ctx, &hooks.Input{Event: hooks.Notification, NotificationType: typ, Message: message})
		case <-waiting.Done():
		}
	})
	return func() {
		// Once Stop returns the timer can no longer fire (Go 1.23 timers),
		// so a notification not yet started never starts.
		timer.Stop()
		cancel()
		wg.Wait()
	}
}

// armIdle starts the idle_prompt notification once a turn has ended; the
// next prompt, or the session's close, stops it.
func (s *Session) armIdle(ctx context.Context) {
	wait := s.agent.cfg.IdleNotifyAfter
	if wait < 0 {
		return
	}
	stop := s.notifyLater(context.WithoutCancel(ctx), wait, "idle_prompt", "cordis is waiting for your input")
	s.mu.Lock()
	prev := s.stopIdle
	s.stopIdle = stop
	s.mu.Unlock()
	if prev != nil {
		prev()
	}
}

// disarmIdle stops a pending idle_prompt notification (a prompt arrived,
// or the session closes).
func (s *Session) disarmIdle() {
	s.mu.Lock()
	stop := s.stopIdle
	s.stopIdle = nil
	s.mu.Unlock()
	if stop != nil {
		stop()
	}
}
