package builtin

import (
	"sync"

	"github.com/cordis-agent/cordis/hooks"
)

// sessions keeps one T per session for the hooks that remember things
// across calls. It is safe for concurrent use; fn runs under its lock, so
// it must be quick.
type sessions[T any] struct {
	mu sync.Mutex
	m  map[string]*T
}

// with runs fn on the session's state, creating it on first use.
func (s *sessions[T]) with(id string, fn func(*T)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.m[id]
	if st == nil {
		if s.m == nil {
			s.m = map[string]*T{}
		}
		st = new(T)
		s.m[id] = st
	}
	fn(st)
}

// drop forgets a session.
func (s *sessions[T]) drop(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, id)
}

// dropOnEnd is the SessionEnd registration that forgets a session's state.
func (s *sessions[T]) dropOnEnd() registration {
	return registration{event: hooks.SessionEnd, priority: 90, run: func(in *hooks.Input) (hooks.Decision, error) {
		s.drop(in.SessionID)
		return hooks.Decision{}, nil
	}}
}
