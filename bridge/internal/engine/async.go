package engine

import (
	"cmp"
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/cordis-agent/cordis/bridge/internal/hookproc"
	"github.com/cordis-agent/cordis/hooks"
)

// DefaultAsyncLimit bounds the background hooks one session runs at once
// when the dialect sets no limit: as many as one RunAll runs at once (four
// per CPU, at most 32), for the same reasons (processes, descriptors).
var DefaultAsyncLimit = min(4*runtime.GOMAXPROCS(0), 32)

// maxAsyncWaiting bounds the background hooks of one session waiting for a
// free slot; past it a firing is dropped (and logged) rather than queued,
// so that a runaway loop of tool calls cannot pile up goroutines.
const maxAsyncWaiting = 1024

// asyncSession is one session's background hooks: the slots bound how many
// run at once, waiting counts those queued for a slot.
type asyncSession struct {
	slots   chan struct{}
	waiting atomic.Int64
}

// asyncSessions holds the sessions' background-hook state, by session id.
type asyncSessions struct {
	mu sync.Mutex
	m  map[string]*asyncSession
}

func (a *asyncSessions) get(id string, limit int) *asyncSession {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.m[id]
	if s == nil {
		if a.m == nil {
			a.m = map[string]*asyncSession{}
		}
		s = &asyncSession{slots: make(chan struct{}, max(limit, 1))}
		a.m[id] = s
	}
	return s
}

func (a *asyncSessions) has(id string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.m[id] != nil
}

// forget drops a session's state; hooks still running keep theirs until
// the session's Later cancels them.
func (a *asyncSessions) forget(id string) {
	a.mu.Lock()
	delete(a.m, id)
	a.mu.Unlock()
}

// background splits the handlers of run into those that run in the
// seam call and those that run in the background. A SessionEnd hook
// always runs in the call (within the SessionEnd budget): started in the
// background it would be killed at once by the session's end.
func (e *Engine[H]) background(in *hooks.Input, run []H) (bg []bool, any bool) {
	b, ok := e.d.(Backgrounder[H])
	if !ok || in.Event == hooks.SessionEnd {
		return nil, false
	}
	bg = make([]bool, len(run))
	for i, h := range run {
		bg[i] = b.Background(in, h)
		any = any || bg[i]
	}
	return bg, any
}

// launch starts the background hooks (handlers[i] runs cmds[i]) through the
// session's Later. Identical commands of one call run once when the
// dialect deduplicates (Claude Code does within a firing; no firing is
// deduplicated against another).
func (e *Engine[H]) launch(in *hooks.Input, handlers []H, cmds []hookproc.Command) {
	b := e.d.(Backgrounder[H])
	// The goroutines keep their own copy of the input: the loop's goes on
	// to other hooks. What belongs to the seam call stays behind.
	input := *in
	input.Record, input.Later, input.Meta = nil, nil, hooks.Metadata{}
	later := in.Later
	session := e.async.get(in.SessionID, cmp.Or(max(e.info.AsyncLimit, 0), DefaultAsyncLimit))
	seen := map[string]bool{}
	for i, h := range handlers {
		cmd := cmds[i]
		if e.info.Dedup {
			if k := cmd.Key(); seen[k] {
				continue
			} else {
				seen[k] = true
			}
		}
		id := h.Identity()
		name := fmt.Sprintf("%s hook `%s` (%s)", e.title(), id.Command, id.Source)
		if session.waiting.Add(1) > maxAsyncWaiting {
			session.waiting.Add(-1)
			e.log.Warn(e.title()+" async hook not started: too many of the session's background hooks are waiting", "event", in.Event, "session", in.SessionID, "command", id.Command, "source", id.Source)
			continue
		}
		started := later.Go(func(ctx context.Context) {
			select {
			case session.slots <- struct{}{}:
				session.waiting.Add(-1)
			case <-ctx.Done():
				session.waiting.Add(-1)
				return
			}
			res := hookproc.Run(ctx, cmd)
			<-session.slots
			if res.Canceled {
				return // the session closed: nobody is left to tell
			}
			late, failure := b.Late(&input, h, res)
			late.Event, late.Hook = input.Event, name
			if failure != "" {
				e.log.Warn(e.title()+" async hook failed; it has no say", e.runAttrs(&input, id, res, "error", failure)...)
				late = hooks.LateResult{Event: input.Event, Hook: name, Failure: failure}
			} else {
				e.logRan(&input, h, res)
			}
			for j, c := range late.Context {
				late.Context[j] = fmt.Sprintf("The %s hook `%s`, which ran in the background, reported:\n%s", input.Event, id.Command, c)
			}
			later.Deliver(late)
		})
		if !started {
			session.waiting.Add(-1)
		}
	}
}

// runLate runs background hooks in the call when the input has no Later
// to own them (a caller outside a session): their context joins the
// decision's, nothing else of theirs decides.
func (e *Engine[H]) runLate(ctx context.Context, in *hooks.Input, handlers []H, cmds []hookproc.Command) (context []string) {
	b := e.d.(Backgrounder[H])
	results := hookproc.RunAll(ctx, cmds, e.info.Dedup)
	for i, res := range results {
		if res.Duplicate {
			continue
		}
		late, failure := b.Late(in, handlers[i], res)
		if failure != "" {
			e.recordFailure(in, handlers[i], res, failure)
			continue
		}
		e.logRan(in, handlers[i], res)
		context = append(context, late.Context...)
	}
	return context
}
