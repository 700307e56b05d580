package loop

import (
	"context"
	"sync"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/llm"
)

// lateHooks is the session's hooks.Later: the background (async) hooks
// the bridges start run on goroutines it owns, which the session's close
// cancels and waits for, and what they report waits in queued for the
// main agent's next model request (turn.go: begin, and after the tool
// results of a step). Delivery never races a turn: the context is taken
// by the turn's goroutine when it builds a message.
type lateHooks struct {
	s      *Session
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	closed bool
	queued []string
}

var _ hooks.Later = (*lateHooks)(nil)

func newLateHooks(s *Session) *lateHooks {
	ctx, cancel := context.WithCancel(context.Background())
	return &lateHooks{s: s, ctx: ctx, cancel: cancel}
}

// Go runs work until it returns or the session closes.
func (l *lateHooks) Go(work func(ctx context.Context)) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		work(l.ctx)
	}()
	return true
}

// Deliver records what a background hook reported and queues its context
// for the next model request. A wake-up (asyncRewake) finding the session
// idle is shown to the user: an agent cannot start a turn by itself, so
// the model sees it with the next prompt.
func (l *lateHooks) Deliver(r hooks.LateResult) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return
	}
	// Recorded before it is queued: the log has the notice before the
	// message that carries its context.
	l.s.record(asyncHookNotice{Kind: "asyncHook", Event: string(r.Event), Hook: r.Hook, Context: r.Context, Wake: r.Wake, Failure: r.Failure})
	l.queued = append(l.queued, r.Context...)
	l.mu.Unlock()
	if !r.Wake || len(r.Context) == 0 {
		return
	}
	l.s.mu.Lock()
	idle := l.s.running == 0
	l.s.mu.Unlock()
	if idle {
		msg := "[cordis: " + r.Hook + ", which ran in the background for " + string(r.Event) + ", asks for the model's attention; the model sees its report with your next prompt:\n" + clipRunes(r.Context[0], 600) + "]\n\n"
		l.s.notify(l.ctx, acp.AgentMessageChunk{Content: acp.TextBlock(msg)})
	}
}

// take returns the queued context, as system reminders, and empties the
// queue.
func (l *lateHooks) take() []llm.Block {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	queued := l.queued
	l.queued = nil
	l.mu.Unlock()
	var out []llm.Block
	for _, c := range queued {
		out = append(out, llm.Text(systemReminder(c)))
	}
	return out
}

// stop kills the session's background hooks and waits until they are
// gone; nothing is delivered after it.
func (l *lateHooks) stop() {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	l.cancel()
	l.wg.Wait()
}

// clipRunes keeps the first n characters of s.
func clipRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
