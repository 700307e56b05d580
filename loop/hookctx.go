package loop

import (
	"context"
	"time"

	"github.com/cordis-agent/cordis/hooks"
)

// observerGrace is how long the hooks that observe what already happened
// (PostToolUse, PostToolUseFailure, LoopEnd, LLMResponse) may still run
// once the turn is cancelled. They run detached so that a cancel does not
// hide the result from them, but a cancel must be answered within a
// second whatever runs; a hook still running after this is killed
// (hookproc.CancelGrace later at most).
const observerGrace = 300 * time.Millisecond

// observerContext is ctx without its cancellation, cancelled
// observerGrace after ctx is; stop releases it.
func observerContext(ctx context.Context) (context.Context, context.CancelFunc) {
	detached, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stopAfter := context.AfterFunc(ctx, func() {
		t := time.NewTimer(observerGrace)
		defer t.Stop()
		select {
		case <-t.C:
			cancel()
		case <-detached.Done():
		}
	})
	return detached, func() {
		stopAfter()
		cancel()
	}
}

// observe runs a seam that observes what already happened, under
// observerContext.
func (r *runner) observe(ctx context.Context, in *hooks.Input) hooks.Decision {
	octx, stop := observerContext(ctx)
	defer stop()
	return r.hook(octx, in)
}
