package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/sourcegraph/jsonrpc2"
)

// answer handles one queued request on the request goroutine and answers
// it, or leaves it to its turn (session/prompt). A panicking handler is
// answered with an internal error.
func (s *Server) answer(r *request) {
	method, id := r.req.Method, r.req.ID
	if r.turn != nil {
		defer s.turns.removeUnstarted(r.turn)
	}
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("panic in ACP handler", "method", method, "panic", p, "stack", string(debug.Stack()))
			s.replyErr(r.conn, id, InternalError("internal error handling %s: %v", method, p))
		}
	}()
	result, err := s.dispatch(r)
	if errors.Is(err, errAnsweredByTurn) {
		return
	}
	if err != nil {
		s.replyErr(r.conn, id, err)
		return
	}
	if err := r.conn.Reply(r.ctx, id, result); err != nil {
		s.log.Warn("reply failed", "method", method, "error", err)
		return
	}
	if sid := openedSession(method, result); sid != "" {
		s.agent.SessionOpened(r.ctx, sid)
	}
}

// errAnsweredByTurn marks a request its turn answers when it ends.
var errAnsweredByTurn = errors.New("acp: answered by its turn")

// dispatch runs the request's method. Every method but initialize needs
// an initialized connection; an unknown method is refused either way.
func (s *Server) dispatch(r *request) (any, error) {
	if r.req.Method == MethodInitialize {
		return s.initialize(r)
	}
	handle := s.methodHandler(r.req.Method)
	if handle == nil {
		return nil, methodNotFound(r.req.Method)
	}
	s.mu.Lock()
	initialized := s.initialized
	s.mu.Unlock()
	if !initialized {
		return nil, InvalidRequest("%s before initialize: send initialize first", r.req.Method)
	}
	return handle(r)
}

func (s *Server) methodHandler(method string) func(*request) (any, error) {
	switch method {
	case MethodAuthenticate:
		return s.authenticate
	case MethodLogout:
		return s.logout
	case MethodSessionFork:
		return s.forkSession
	case MethodSessionNew:
		return s.newSession
	case MethodSessionLoad:
		return s.loadSession
	case MethodSessionList:
		return s.listSessions
	case MethodSessionResume:
		return s.resumeSession
	case MethodSessionDelete:
		return s.deleteSession
	case MethodSessionClose:
		return s.closeSession
	case MethodSessionSetMode:
		return s.setSessionMode
	case MethodSessionSetConfigOption:
		return s.setSessionConfigOption
	case MethodSessionPrompt:
		return s.prompt
	}
	return nil
}

func methodNotFound(method string) *Error {
	return &Error{Code: CodeMethodNotFound, Message: "method not found: " + method}
}

// params decodes a request's params, requiring the named keys.
func params[P any](req *jsonrpc2.Request, required ...string) (*P, error) {
	p := new(P)
	if err := decodeParams(req, p, required...); err != nil {
		return nil, err
	}
	return p, nil
}

// initialize runs the agent's Initialize, settles the protocol version and
// records the client's capabilities.
func (s *Server) initialize(r *request) (any, error) {
	p, err := params[InitializeRequest](r.req, "protocolVersion")
	if err != nil {
		return nil, err
	}
	resp, err := s.agent.Initialize(r.ctx, p)
	if err != nil {
		return nil, err
	}
	if p.ProtocolVersion < resp.ProtocolVersion && p.ProtocolVersion >= 1 {
		resp.ProtocolVersion = p.ProtocolVersion
	}
	s.client.setCapabilities(p.ClientCapabilities)
	s.mu.Lock()
	s.initialized = true
	s.mu.Unlock()
	return resp, nil
}

func (s *Server) authenticate(r *request) (any, error) {
	p, err := params[AuthenticateRequest](r.req, "methodId")
	if err != nil {
		return nil, err
	}
	return struct{}{}, s.agent.Authenticate(r.ctx, p)
}

func (s *Server) logout(r *request) (any, error) {
	l, ok := s.agent.(LoggerOut)
	if !ok {
		return nil, methodNotFound(r.req.Method)
	}
	return struct{}{}, l.Logout(r.ctx)
}

func (s *Server) forkSession(r *request) (any, error) {
	forker, ok := s.agent.(SessionForker)
	if !ok {
		return nil, methodNotFound(r.req.Method)
	}
	p, err := params[ForkSessionRequest](r.req, "sessionId", "cwd")
	if err != nil {
		return nil, err
	}
	if err := checkAbsolute("cwd", p.Cwd, p.AdditionalDirectories); err != nil {
		return nil, err
	}
	return forker.ForkSession(r.ctx, p)
}

func (s *Server) newSession(r *request) (any, error) {
	p, err := params[NewSessionRequest](r.req, "cwd")
	if err != nil {
		return nil, err
	}
	if err := checkAbsolute("cwd", p.Cwd, p.AdditionalDirectories); err != nil {
		return nil, err
	}
	return s.agent.NewSession(r.ctx, p)
}

func (s *Server) loadSession(r *request) (any, error) {
	p, err := params[LoadSessionRequest](r.req, "sessionId", "cwd")
	if err != nil {
		return nil, err
	}
	if err := checkAbsolute("cwd", p.Cwd, p.AdditionalDirectories); err != nil {
		return nil, err
	}
	resp, err := s.agent.LoadSession(r.ctx, p)
	if err != nil {
		return nil, err
	}
	return &loadResult{resp, p.SessionID}, nil
}

func (s *Server) listSessions(r *request) (any, error) {
	p, err := params[ListSessionsRequest](r.req)
	if err != nil {
		return nil, err
	}
	return s.agent.ListSessions(r.ctx, p)
}

func (s *Server) resumeSession(r *request) (any, error) {
	resumer, ok := s.agent.(SessionResumer)
	if !ok {
		return nil, methodNotFound(r.req.Method)
	}
	p, err := params[ResumeSessionRequest](r.req, "sessionId", "cwd")
	if err != nil {
		return nil, err
	}
	if err := checkAbsolute("cwd", p.Cwd, p.AdditionalDirectories); err != nil {
		return nil, err
	}
	resp, err := resumer.ResumeSession(r.ctx, p)
	if err != nil {
		return nil, err
	}
	return &resumeResult{resp, p.SessionID}, nil
}

// deleteSession and closeSession cancel the session's turns started before
// them on the wire; a prompt read after them is not theirs to cancel.
func (s *Server) deleteSession(r *request) (any, error) {
	deleter, ok := s.agent.(SessionDeleter)
	if !ok {
		return nil, methodNotFound(r.req.Method)
	}
	p, err := params[DeleteSessionRequest](r.req, "sessionId")
	if err != nil {
		return nil, err
	}
	s.turns.cancelSession(p.SessionID, true)
	return struct{}{}, deleter.DeleteSession(r.ctx, p)
}

func (s *Server) closeSession(r *request) (any, error) {
	p, err := params[CloseSessionRequest](r.req, "sessionId")
	if err != nil {
		return nil, err
	}
	s.turns.cancelSession(p.SessionID, true)
	return struct{}{}, s.agent.CloseSession(r.ctx, p)
}

func (s *Server) setSessionMode(r *request) (any, error) {
	p, err := params[SetSessionModeRequest](r.req, "sessionId", "modeId")
	if err != nil {
		return nil, err
	}
	return struct{}{}, s.agent.SetSessionMode(r.ctx, p)
}

func (s *Server) setSessionConfigOption(r *request) (any, error) {
	p, err := params[SetSessionConfigOptionRequest](r.req, "sessionId", "configId", "value")
	if err != nil {
		return nil, err
	}
	return s.agent.SetSessionConfigOption(r.ctx, p)
}

// prompt starts the turn registered on intake; the params were decoded
// then too.
func (s *Server) prompt(r *request) (any, error) {
	if r.promptErr != nil {
		return nil, r.promptErr
	}
	s.startTurn(r.conn, r.turn, r.prompt)
	return nil, errAnsweredByTurn
}

// openedSession is the session a successful new, load or resume opened.
func openedSession(method string, result any) string {
	switch method {
	case MethodSessionNew:
		return result.(*NewSessionResponse).SessionID
	case MethodSessionLoad:
		return result.(*loadResult).sessionID
	case MethodSessionResume:
		return result.(*resumeResult).sessionID
	case MethodSessionFork:
		return result.(*ForkSessionResponse).SessionID
	}
	return ""
}

// resumeResult and loadResult carry the session id to SessionOpened; the
// client sees the agent's response, {} when it is nil.
type resumeResult struct {
	*ResumeSessionResponse
	sessionID string
}

func (r *resumeResult) MarshalJSON() ([]byte, error) {
	if r.ResumeSessionResponse == nil {
		return []byte("{}"), nil
	}
	return json.Marshal(r.ResumeSessionResponse)
}

type loadResult struct {
	*LoadSessionResponse
	sessionID string
}

func (r *loadResult) MarshalJSON() ([]byte, error) {
	if r.LoadSessionResponse == nil {
		return []byte("{}"), nil
	}
	return json.Marshal(r.LoadSessionResponse)
}

// replyErr answers id with err's JSON-RPC error; an error that is not an
// *Error is an internal error.
func (s *Server) replyErr(conn *jsonrpc2.Conn, id jsonrpc2.ID, err error) {
	var e *Error
	if !errors.As(err, &e) {
		e = InternalError("%v", err)
	}
	rpcErr := &jsonrpc2.Error{Code: e.Code, Message: e.Message}
	if e.Data != nil {
		rpcErr.SetError(e.Data)
	}
	if werr := conn.ReplyWithError(context.Background(), id, rpcErr); werr != nil {
		s.log.Warn("error reply failed", "error", werr)
	}
}

// decodeParams decodes req.Params into v, requiring the named keys. Errors
// are -32602 and name the field.
func decodeParams(req *jsonrpc2.Request, v any, required ...string) error {
	if req.Params == nil || string(*req.Params) == "null" {
		if len(required) == 0 {
			return nil
		}
		return InvalidParams("%s needs params with %s", req.Method, strings.Join(required, ", "))
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(*req.Params, &keys); err != nil {
		return InvalidParams("%s params must be an object", req.Method)
	}
	var missing []string
	for _, k := range required {
		if raw, ok := keys[k]; !ok || string(raw) == "null" {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return InvalidParams("%s: missing required field %s", req.Method, strings.Join(quoteAll(missing), ", "))
	}
	if err := json.Unmarshal(*req.Params, v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return InvalidParams("%s: field %q must be %s, got %s", req.Method, typeErr.Field, jsonTypeName(typeErr.Type.Kind().String()), typeErr.Value)
		}
		return InvalidParams("%s: %v", req.Method, err)
	}
	return nil
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

func jsonTypeName(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "slice", "array":
		return "an array"
	case "struct", "map":
		return "an object"
	case "bool":
		return "a boolean"
	case "int", "int64", "uint16", "uint32", "uint64", "float64":
		return "a number"
	}
	return "of type " + kind
}

func checkAbsolute(field, cwd string, extra []string) error {
	if !strings.HasPrefix(cwd, "/") {
		return InvalidParams("field %q must be an absolute path, got %q", field, cwd)
	}
	for _, d := range extra {
		if !strings.HasPrefix(d, "/") {
			return InvalidParams("field \"additionalDirectories\" must hold absolute paths, got %q", d)
		}
	}
	return nil
}
