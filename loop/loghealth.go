package loop

import (
	"context"
	"errors"
	"sync"

	"github.com/cordis-agent/cordis/acp"
)

// errUnsaved is the cause a turn is cancelled with when its session log
// stops taking appends (a full disk): going on would do work nothing
// records.
var errUnsaved = errors.New("the session log can no longer be written")

// logHealth is whether a session's log still takes appends. The first
// failed append cancels the running turns (their prompts then fail with a
// JSON-RPC error); later prompts are refused until an append works again.
// It is safe for concurrent use.
type logHealth struct {
	mu       sync.Mutex
	err      error // the first failed append since the log last worked
	watchers map[int]context.CancelCauseFunc
	next     int
}

// fail records a failed append and cancels the turns watching the log. It
// reports whether this was the first failure.
func (h *logHealth) fail(err error) bool {
	h.mu.Lock()
	if h.err != nil {
		h.mu.Unlock()
		return false
	}
	h.err = err
	watchers := h.watchers
	h.watchers = nil
	h.mu.Unlock()
	for _, cancel := range watchers {
		cancel(errUnsaved)
	}
	return true
}

// failure is the failed append, or nil while the log works.
func (h *logHealth) failure() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

// recovered forgets the failure once an append worked again.
func (h *logHealth) recovered() {
	h.mu.Lock()
	h.err = nil
	h.mu.Unlock()
}

// watch derives a turn's context that a failed append cancels; stop
// releases it.
func (h *logHealth) watch(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	h.mu.Lock()
	if h.err != nil {
		h.mu.Unlock()
		cancel(errUnsaved)
		return ctx, func() {}
	}
	if h.watchers == nil {
		h.watchers = map[int]context.CancelCauseFunc{}
	}
	id := h.next
	h.next++
	h.watchers[id] = cancel
	h.mu.Unlock()
	return ctx, func() {
		h.mu.Lock()
		delete(h.watchers, id)
		h.mu.Unlock()
		cancel(nil)
	}
}

// unsavedError is what the editor is told when a session's log failed.
func unsavedError(id string, err error) error {
	return acp.InternalError("session %s can no longer be saved (%v); nothing more is recorded, so cordis stopped the turn. "+
		"Free space (or fix the state directory) and prompt again: the session goes on once its log can be written", id, err)
}

// logNotice records that the log works again after a failure.
type logRecoveredNotice struct {
	Kind  string `json:"kind"` // logRecovered
	Error string `json:"error"`
}

// checkLog is called before a turn: a session whose log failed is refused
// unless an append works again (the recovery is itself recorded).
func (s *Session) checkLog() error {
	failed := s.logHealth.failure()
	if failed == nil {
		return nil
	}
	if _, err := s.log.Append(logRecoveredNotice{}.logType(), logRecoveredNotice{Kind: "logRecovered", Error: failed.Error()}); err != nil {
		return unsavedError(s.id, err)
	}
	s.logHealth.recovered()
	return nil
}

// logFailed notes a failed append of the session's (or a subagent's) log.
func (s *Session) logFailed(typ string, err error) {
	if s.logHealth.fail(err) {
		s.agent.log.Error("session log append failed; the session's turns stop until it can be written", "session", s.id, "type", typ, "error", err)
		return
	}
	s.agent.log.Debug("session log append failed", "session", s.id, "type", typ, "error", err)
}
