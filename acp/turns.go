package acp

import (
	"context"
	"encoding/json"
	"errors"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/sourcegraph/jsonrpc2"
)

// turn is one session/prompt, from the moment it is read to its answer.
type turn struct {
	sessionID string
	requestID jsonrpc2.ID
	ctx       context.Context
	cancel    context.CancelCauseFunc
	done      chan struct{} // closed once the turn has answered
	started   bool          // guarded by turnRegistry.mu
}

// turnRegistry holds every turn from its intake to its end, so that a
// cancel finds the turns read before it whether they wait in the queue or
// run. It is safe for concurrent use.
type turnRegistry struct {
	mu        sync.Mutex
	bySession map[string][]*turn
	// exclusive is each session's running turn that was not started
	// alongside another: the one a new prompt replaces.
	exclusive map[string]*turn
}

func (r *turnRegistry) init() {
	r.bySession = map[string][]*turn{}
	r.exclusive = map[string]*turn{}
}

// register records a turn read from the wire; it is cancellable from now
// on and starts when the request goroutine reaches it.
func (r *turnRegistry) register(base context.Context, sessionID string, id jsonrpc2.ID) *turn {
	ctx, cancel := context.WithCancelCause(base)
	t := &turn{sessionID: sessionID, requestID: id, ctx: ctx, cancel: cancel, done: make(chan struct{})}
	r.mu.Lock()
	r.bySession[sessionID] = append(r.bySession[sessionID], t)
	r.mu.Unlock()
	return t
}

// start marks t started and, unless it runs alongside, makes it the
// session's exclusive turn; it returns the exclusive turn it replaces.
func (r *turnRegistry) start(t *turn, alongside bool) (replaced *turn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t.started = true
	if alongside {
		return nil
	}
	replaced = r.exclusive[t.sessionID]
	r.exclusive[t.sessionID] = t
	return replaced
}

// remove forgets t and releases its context.
func (r *turnRegistry) remove(t *turn) {
	r.mu.Lock()
	ts := slices.DeleteFunc(r.bySession[t.sessionID], func(x *turn) bool { return x == t })
	if len(ts) == 0 {
		delete(r.bySession, t.sessionID)
	} else {
		r.bySession[t.sessionID] = ts
	}
	if r.exclusive[t.sessionID] == t {
		delete(r.exclusive, t.sessionID)
	}
	r.mu.Unlock()
	t.cancel(nil)
}

// removeUnstarted forgets t if the request goroutine did not start it (its
// request was refused).
func (r *turnRegistry) removeUnstarted(t *turn) {
	r.mu.Lock()
	started := t.started
	r.mu.Unlock()
	if !started {
		r.remove(t)
	}
}

// cancelSession cancels the session's turns: all of them, or only those
// already started (a session/close read after a prompt still in the queue
// is handled before that prompt, which must not be cancelled by it).
func (r *turnRegistry) cancelSession(sessionID string, startedOnly bool) {
	var cancel []*turn
	r.mu.Lock()
	for _, t := range r.bySession[sessionID] {
		if t.started || !startedOnly {
			cancel = append(cancel, t)
		}
	}
	r.mu.Unlock()
	for _, t := range cancel {
		t.cancel(ErrCancelled)
	}
}

// cancelRequest cancels the turn of the session/prompt request whose id is
// raw, if there is one.
func (r *turnRegistry) cancelRequest(raw json.RawMessage) {
	want := strings.TrimSpace(string(raw))
	var found []*turn
	r.mu.Lock()
	for _, ts := range r.bySession {
		for _, t := range ts {
			if id, err := json.Marshal(t.requestID); err == nil && string(id) == want {
				found = append(found, t)
			}
		}
	}
	r.mu.Unlock()
	for _, t := range found {
		t.cancel(ErrCancelled)
	}
}

// startTurn starts a turn the request goroutine has reached, on its own
// goroutine so that the next request need not wait for it and its reverse
// calls are answered. A prompt for a session whose turn is still running
// cancels that turn and starts once it has answered, unless the agent
// runs it alongside.
func (s *Server) startTurn(conn *jsonrpc2.Conn, t *turn, p *PromptRequest) {
	alongside := false
	if cp, ok := s.agent.(ConcurrentPrompter); ok {
		alongside = cp.RunsAlongside(p)
	}
	prev := s.turns.start(t, alongside)
	if prev != nil {
		prev.cancel(ErrCancelled)
	}
	s.running.Go(func() {
		defer close(t.done)
		defer s.turns.remove(t)
		if prev != nil {
			<-prev.done
		}
		s.answerTurn(conn, t, p)
	})
}

// answerTurn runs the agent's Prompt and answers the request.
func (s *Server) answerTurn(conn *jsonrpc2.Conn, t *turn, p *PromptRequest) {
	resp, err := s.runPrompt(t, p)
	if errors.Is(context.Cause(t.ctx), ErrCancelled) {
		// The spec requires `cancelled` after session/cancel, even when
		// the turn failed or finished in the same instant.
		resp, err = &PromptResponse{StopReason: StopCancelled}, nil
	}
	if err != nil {
		s.replyErr(conn, t.requestID, err)
		return
	}
	if rerr := conn.Reply(t.ctx, t.requestID, resp); rerr != nil {
		s.log.Warn("prompt reply failed", "error", rerr)
	}
}

func (s *Server) runPrompt(t *turn, p *PromptRequest) (resp *PromptResponse, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic in prompt turn", "panic", r, "stack", string(debug.Stack()))
			resp, err = nil, InternalError("internal error in the turn: %v", r)
		}
	}()
	return s.agent.Prompt(t.ctx, p)
}
