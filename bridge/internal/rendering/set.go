package rendering

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/internal/secrets"
	"github.com/cordis-agent/cordis/sessionlog"
)

// Set keeps one dialect's renderings of every session of the process.
type Set struct {
	format Format

	mu       sync.Mutex
	sessions map[string]*session // by session log path
}

// NewSet returns a Set rendering with format.
func NewSet(format Format) *Set {
	return &Set{format: format, sessions: map[string]*session{}}
}

// Paths are the renderings a hook is told about: the session's, and the
// subagent's inside a subagent ("" outside one, or without a log).
type Paths struct {
	Session, Agent string
}

// Sync brings the renderings of in's session (and of its subagent, when
// in has an AgentLogPath) up to date with their logs, and returns their
// paths. The paths are returned even when an error kept a file from
// being written: the hook then reads what the file holds.
func (s *Set) Sync(in *hooks.Input) (Paths, error) {
	if in.SessionLogPath == "" {
		return Paths{}, nil
	}
	s.mu.Lock()
	ss := s.sessions[in.SessionLogPath]
	if ss == nil {
		ss = &session{set: s, agents: map[string]*follow{}, known: map[string]agentInfo{}}
		ss.main = ss.newFollow(in.SessionLogPath, "", "", 0)
		s.sessions[in.SessionLogPath] = ss
	}
	s.mu.Unlock()

	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.contextWindow = in.ContextWindow
	paths := Paths{Session: ss.main.path}
	errs := []error{ss.sync(ss.main)}
	if in.AgentLogPath != "" {
		f := ss.agent(in)
		paths.Agent = f.path
		errs = append(errs, ss.sync(f))
	}
	return paths, errors.Join(errs...)
}

// Forget drops what the Set keeps for the session of the log at path (at
// its end): a later Sync renders its files whole again.
func (s *Set) Forget(sessionLogPath string) {
	s.mu.Lock()
	delete(s.sessions, sessionLogPath)
	s.mu.Unlock()
}

// session is the Set's state for one session; mu serialises its syncs.
type session struct {
	set *Set

	mu            sync.Mutex
	main          *follow
	agents        map[string]*follow   // by agent log path
	known         map[string]agentInfo // subagents seen starting, by id
	state         sessionState
	contextWindow int
}

// agentInfo is what a subagent/start event says of a subagent.
type agentInfo struct {
	depth int
	typ   string
}

// sessionState is what the session log has said so far.
type sessionState struct {
	id, startCwd, cwd, startModel, model, mode string
}

// follow is one log and its rendering file.
type follow struct {
	log     *sessionlog.Follower
	path    string // the rendering
	agentID string
	depth   int // 0 for the session's log
	// turnID names the subagent's one turn.
	turnID string

	r       Renderer // nil until the file starts
	started time.Time
	// open is a turn begun by turn/start whose first message has not come.
	open *Turn
	// held are entries waiting for held[0]'s turn to know its model.
	held []Entry
	// usage is a response's usage waiting for the response's message.
	usage *Entry
	// outputs are tool outputs from tool/result events, by call id, for
	// the message that names them (toolOutputs: stored once in the log).
	outputs map[string]string
	out     bytes.Buffer // lines not yet written
	// written is set once the file was rendered in this process.
	written bool
}

// newFollow starts following a log; a subagent's (agentID set) holds
// one turn, turnID.
func (ss *session) newFollow(logPath, agentID, turnID string, depth int) *follow {
	f := &follow{log: sessionlog.Follow(logPath), path: ss.set.format.Path(logPath, agentID != ""), agentID: agentID, turnID: turnID, depth: depth}
	if agentID != "" {
		f.open = &Turn{ID: turnID}
	}
	return f
}

// agent is the follow of in's subagent, made on first use. A subagent
// nested in another reports its start in its parent's log, which is
// followed first (it is a subagent the session knows).
func (ss *session) agent(in *hooks.Input) *follow {
	if f := ss.agents[in.AgentLogPath]; f != nil {
		return f
	}
	for range 8 {
		if _, ok := ss.known[in.AgentID]; ok {
			break
		}
		progressed := false
		for _, f := range ss.agents {
			if n := len(ss.known); ss.sync(f) == nil && len(ss.known) > n {
				progressed = true
			}
		}
		if !progressed {
			break
		}
	}
	info, ok := ss.known[in.AgentID]
	if !ok {
		info = agentInfo{depth: 1}
	}
	f := ss.newFollow(in.AgentLogPath, in.AgentID, in.TurnID, info.depth)
	ss.agents[in.AgentLogPath] = f
	if info.typ == "" {
		ss.known[in.AgentID] = agentInfo{depth: info.depth, typ: in.AgentType}
	}
	return f
}

// sync reads f's new events and writes their lines. A file removed since
// it was written is rendered whole again.
func (ss *session) sync(f *follow) error {
	if _, err := os.Stat(f.path); f.written && errors.Is(err, os.ErrNotExist) {
		*f = *ss.newFollow(f.log.Path(), f.agentID, f.turnID, f.depth)
	}
	events, err := f.log.Next()
	for _, ev := range events {
		if f.started.IsZero() {
			f.started = ev.Time
		}
		ss.apply(f, ev)
	}
	if werr := ss.write(f); werr != nil {
		return werr
	}
	if err != nil {
		return fmt.Errorf("rendering %s: %w", f.path, err)
	}
	return nil
}

// write starts f's file (rendered whole, written to a temporary file
// renamed over it) or appends its new lines.
func (ss *session) write(f *follow) error {
	if f.started.IsZero() {
		return nil // no log yet: nothing to render
	}
	if f.r == nil {
		ss.start(f)
	}
	if f.written && f.out.Len() == 0 {
		return nil
	}
	data := secrets.Scrub(f.out.Bytes())
	if err := os.MkdirAll(filepath.Dir(f.path), 0o700); err != nil {
		return err
	}
	if !f.written {
		if err := replaceFile(f.path, data); err != nil {
			return err
		}
	} else if err := appendFile(f.path, data); err != nil {
		return err
	}
	f.written = true
	f.out.Reset()
	return nil
}

// start begins f's rendering: the renderer, and the lines the file
// starts with. It runs before f's first entry is rendered.
func (ss *session) start(f *follow) {
	st := ss.state
	file := File{SessionID: st.id, Cwd: st.startCwd, Model: st.startModel, Started: f.started, ContextWindow: ss.contextWindow}
	if f.agentID != "" {
		info := ss.known[f.agentID]
		file.Cwd, file.AgentID, file.AgentType, file.Depth = st.cwd, f.agentID, info.typ, f.depth
	}
	r, head := ss.set.format.Start(file)
	f.r = r
	f.out.Write(head)
}

func replaceFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".rendering-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func appendFile(path string, data []byte) error {
	file, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	_, err = file.Write(data)
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	return err
}
