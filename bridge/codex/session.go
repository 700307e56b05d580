package codex

import (
	"slices"
	"sync"

	"github.com/cordis-agent/cordis/hooks"
)

// sessions is what the dialect remembers per session, written only while
// a seam call runs (Prepare) and read by Match and Observes. Its mutex is
// never held while a file is read or a command runs.
type sessions struct {
	mu sync.Mutex
	m  map[string]*sessionState
}

// sessionState is what the dialect remembers about one session.
type sessionState struct {
	// snapshots hold files' content before an Edit/Write, by tool use id,
	// for the PostToolUse patch; bounded by maxSnapshots.
	snapshots     map[string]fileState
	snapshotOrder []string
	// agentTypes remembers each subagent's type from SubagentStart, since
	// the loop does not repeat it on SubagentStop and tool events.
	agentTypes map[string]string
}

const maxSnapshots = 32

// begin does a seam call's bookkeeping: it remembers a subagent's type at
// SubagentStart, fills it into in (a copy) where the loop left it out, and
// forgets the session at SessionEnd. It returns the input to use. A
// session is remembered only once there is something to remember, so
// that SessionEnd leaves no trace otherwise.
func (s *sessions) begin(event string, in *hooks.Input) *hooks.Input {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case event == evSessionEnd:
		delete(s.m, in.SessionID)
	case event == evSubagentStart && in.AgentID != "":
		s.stateLocked(in.SessionID).agentTypes[in.AgentID] = in.AgentType
	case in.AgentID != "" && in.AgentType == "" && s.m[in.SessionID] != nil:
		if t := s.m[in.SessionID].agentTypes[in.AgentID]; t != "" {
			c := *in
			c.AgentType = t
			in = &c
		}
	}
	return in
}

// stateLocked is the state of session, created when missing.
func (s *sessions) stateLocked(session string) *sessionState {
	st := s.m[session]
	if st == nil {
		st = &sessionState{snapshots: map[string]fileState{}, agentTypes: map[string]string{}}
		s.m[session] = st
	}
	return st
}

// agentType is in's agent type, or the one remembered for its agent.
func (s *sessions) agentType(in *hooks.Input) string {
	if in.AgentID == "" || in.AgentType != "" {
		return in.AgentType
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.m[in.SessionID]; st != nil {
		return st.agentTypes[in.AgentID]
	}
	return ""
}

// has reports whether anything is remembered for session.
func (s *sessions) has(session string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[session] != nil
}

// hasSnapshot reports whether a file's content is kept for a tool call.
func (s *sessions) hasSnapshot(session, toolUseID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.m[session]
	if st == nil {
		return false
	}
	_, ok := st.snapshots[toolUseID]
	return ok
}

// keep keeps a file's content before tool call id, forgetting the oldest
// beyond maxSnapshots.
func (s *sessions) keep(session, id string, fs fileState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stateLocked(session)
	if _, ok := st.snapshots[id]; !ok {
		st.snapshotOrder = append(st.snapshotOrder, id)
	}
	st.snapshots[id] = fs
	for len(st.snapshotOrder) > maxSnapshots {
		delete(st.snapshots, st.snapshotOrder[0])
		st.snapshotOrder = st.snapshotOrder[1:]
	}
}

// take returns and forgets the content kept for a tool call.
func (s *sessions) take(session, id string) *fileState {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.m[session]
	if st == nil {
		return nil
	}
	fs, ok := st.snapshots[id]
	if !ok {
		return nil
	}
	delete(st.snapshots, id)
	st.snapshotOrder = slices.DeleteFunc(st.snapshotOrder, func(s string) bool { return s == id })
	return &fs
}

// snapshot keeps, at PreToolUse of an Edit/Write that a PostToolUse hook
// will see, the file's content before the call.
func (s *sessions) snapshot(in *hooks.Input) {
	if in.ToolUseID == "" || s.hasSnapshot(in.SessionID, in.ToolUseID) {
		return
	}
	var e editInput
	if unmarshalInto(in.ToolInput, &e) != nil || e.FilePath == "" {
		return
	}
	abs, _ := patchPaths(in.Cwd, e.FilePath)
	s.keep(in.SessionID, in.ToolUseID, readState(in.Cwd, abs))
}
