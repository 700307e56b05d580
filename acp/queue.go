package acp

import (
	"context"
	"encoding/json"
	"runtime/debug"
	"sync"

	"github.com/sourcegraph/jsonrpc2"
)

// The server takes what it reads in two steps, as gopls's jsonrpc2_v2
// does with its Preempter and ordered Handler:
//
//   - intake, on the read goroutine, never waits for a handler:
//     session/cancel and $/cancel_request take effect at once (the preempt
//     path), a session/prompt has its turn registered (so a cancel read
//     after it always finds it, even while it waits in the queue), other
//     notifications are ignored, and every request joins the queue;
//   - the request goroutine takes the queue in wire order: each request is
//     decoded, checked and answered before the next, except a prompt's
//     turn, which it starts and leaves running on its own goroutine.
//
// The read goroutine is thus always free to take the answers to the
// agent's own calls to the editor, which no handler can hold up.

// request is a request read from the wire and not yet answered.
type request struct {
	ctx  context.Context
	conn *jsonrpc2.Conn
	req  *jsonrpc2.Request
	// For session/prompt: the params decoded on intake, or why they do
	// not decode, and the turn registered then.
	prompt    *PromptRequest
	promptErr error
	turn      *turn
}

// Handle implements jsonrpc2.Handler: the intake. It runs on the read
// goroutine.
func (s *Server) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if req.Notif {
		s.preempt(req)
		return
	}
	r := &request{ctx: context.WithValue(ctx, requestIDKey{}, req.ID), conn: conn, req: req}
	if req.Method == MethodSessionPrompt {
		s.registerTurn(r)
	}
	s.queue.push(r)
}

// requestIDKey is the context key of the id of the request a handler
// answers.
type requestIDKey struct{}

// RequestID is the JSON id of the editor's request that ctx (a handler's
// context) belongs to, or nil: what a request-scoped elicitation names
// before any session exists.
func RequestID(ctx context.Context) json.RawMessage {
	id, ok := ctx.Value(requestIDKey{}).(jsonrpc2.ID)
	if !ok {
		return nil
	}
	b, err := json.Marshal(id)
	if err != nil {
		return nil
	}
	return b
}

// registerTurn decodes a prompt's params and registers its turn.
func (s *Server) registerTurn(r *request) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("panic decoding a prompt", "panic", p, "stack", string(debug.Stack()))
			r.promptErr = InternalError("internal error reading %s: %v", r.req.Method, p)
		}
	}()
	var p PromptRequest
	if r.promptErr = decodeParams(r.req, &p, "sessionId", "prompt"); r.promptErr == nil {
		r.prompt = &p
		r.turn = s.turns.register(s.baseCtx, p.SessionID, r.req.ID)
	}
}

// preempt acts on a notification as it is read.
func (s *Server) preempt(req *jsonrpc2.Request) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("panic in ACP notification", "method", req.Method, "panic", p, "stack", string(debug.Stack()))
		}
	}()
	switch req.Method {
	case MethodSessionCancel:
		var p CancelNotification
		if err := decodeParams(req, &p, "sessionId"); err != nil {
			s.log.Warn("bad session/cancel", "error", err)
			return
		}
		s.turns.cancelSession(p.SessionID, false)
	case MethodCancelRequest:
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if err := decodeParams(req, &p, "requestId"); err != nil {
			return
		}
		s.turns.cancelRequest(p.RequestID)
	default:
		// Unknown notifications (including `_` extensions) are ignored, as the spec asks.
		s.log.Debug("ignored notification", "method", req.Method)
	}
}

// handleQueue is the request goroutine: it answers the queued requests in
// wire order until the connection ends.
func (s *Server) handleQueue() {
	started := sync.OnceFunc(func() {
		if s.opts.Started != nil {
			s.opts.Started()
		}
	})
	defer started() // when the input ended before any request
	for {
		r, ok := s.queue.take(s.baseCtx)
		if !ok {
			break
		}
		s.answer(r)
		started()
		s.queue.finished()
	}
	// Requests left when the connection ended can no longer be answered.
	for _, r := range s.queue.clear() {
		if r.turn != nil {
			s.turns.remove(r.turn)
		}
	}
}

// requestQueue is an unbounded FIFO of requests with one consumer, so that
// intake never blocks. It is safe for concurrent use.
type requestQueue struct {
	mu      sync.Mutex
	pending []*request
	busy    bool          // the consumer is answering a request
	changed chan struct{} // closed and replaced whenever pending or busy changes
}

func (q *requestQueue) init() { q.changed = make(chan struct{}) }

// notify wakes whoever waits for a change; q.mu must be held.
func (q *requestQueue) notify() {
	close(q.changed)
	q.changed = make(chan struct{})
}

func (q *requestQueue) push(r *request) {
	q.mu.Lock()
	q.pending = append(q.pending, r)
	q.notify()
	q.mu.Unlock()
}

// take waits for the next request; it reports false once ctx has ended.
// The consumer calls finished when it has answered it.
func (q *requestQueue) take(ctx context.Context) (*request, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.waitLocked(ctx, func() bool { return len(q.pending) > 0 })
	if ctx.Err() != nil {
		return nil, false
	}
	r := q.pending[0]
	q.pending[0] = nil
	q.pending = q.pending[1:]
	q.busy = true
	q.notify()
	return r, true
}

func (q *requestQueue) finished() {
	q.mu.Lock()
	q.busy = false
	q.notify()
	q.mu.Unlock()
}

// waitIdle returns once every request pushed so far has been answered, or
// ctx has ended.
func (q *requestQueue) waitIdle(ctx context.Context) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.waitLocked(ctx, func() bool { return len(q.pending) == 0 && !q.busy })
}

// waitLocked waits, q.mu held, until done reports true or ctx has ended;
// the lock is released while it waits for the next change.
func (q *requestQueue) waitLocked(ctx context.Context, done func() bool) {
	for !done() && ctx.Err() == nil {
		changed := q.changed
		q.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
		}
		q.mu.Lock()
	}
}

// clear empties the queue and returns what it held.
func (q *requestQueue) clear() []*request {
	q.mu.Lock()
	defer q.mu.Unlock()
	left := q.pending
	q.pending = nil
	q.notify()
	return left
}
