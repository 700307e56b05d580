package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// Agent is what cordis serves over ACP. The Server decodes and validates
// params before calling it, and replies with what it returns; an *Error
// chooses the JSON-RPC error code.
//
// Every method but Prompt runs on the connection's read goroutine, in wire
// order, and must not call the client and wait for an answer (notifications
// are fine). Prompt runs on its own goroutine with a context that
// session/cancel cancels.
type Agent interface {
	Initialize(ctx context.Context, req *InitializeRequest) (*InitializeResponse, error)
	Authenticate(ctx context.Context, req *AuthenticateRequest) error
	NewSession(ctx context.Context, req *NewSessionRequest) (*NewSessionResponse, error)
	LoadSession(ctx context.Context, req *LoadSessionRequest) (*LoadSessionResponse, error)
	ListSessions(ctx context.Context, req *ListSessionsRequest) (*ListSessionsResponse, error)
	CloseSession(ctx context.Context, req *CloseSessionRequest) error
	SetSessionMode(ctx context.Context, req *SetSessionModeRequest) error
	SetSessionConfigOption(ctx context.Context, req *SetSessionConfigOptionRequest) (*SetSessionConfigOptionResponse, error)
	// SessionOpened runs after the session/new or session/load response
	// has been written: updates sent before it would be dropped by Zed.
	SessionOpened(ctx context.Context, sessionID string)
	// Prompt runs one turn. When ctx is cancelled by session/cancel it must
	// return promptly; the server answers `cancelled` whatever it returns.
	Prompt(ctx context.Context, req *PromptRequest) (*PromptResponse, error)
	// Shutdown runs once the client has gone and every turn has ended.
	Shutdown(ctx context.Context)
}

// SessionResumer is implemented by agents that advertise
// sessionCapabilities.resume; without it session/resume is an unknown
// method. Its session is announced to the agent (SessionOpened) after the
// response, as for new and load.
type SessionResumer interface {
	ResumeSession(ctx context.Context, req *ResumeSessionRequest) (*ResumeSessionResponse, error)
}

// SessionDeleter is implemented by agents that advertise
// sessionCapabilities.delete; without it session/delete is an unknown
// method. A running turn of the session is cancelled first, as for close.
type SessionDeleter interface {
	DeleteSession(ctx context.Context, req *DeleteSessionRequest) error
}

// ConcurrentPrompter is implemented by agents that can answer some
// prompts while a turn of the same session is running (slash commands that
// only read state). Such a prompt neither cancels nor waits for the
// running turn. RunsAlongside is called on the read goroutine and must be
// quick.
type ConcurrentPrompter interface {
	RunsAlongside(req *PromptRequest) bool
}

// ErrCancelled is the cause of a turn context cancelled by session/cancel.
var ErrCancelled = errors.New("acp: turn cancelled by the client")

// errDisconnected is the cause of turn contexts cancelled because stdin closed.
var errDisconnected = errors.New("acp: client disconnected")

// Options tune a Server.
type Options struct {
	Logger *slog.Logger
	// ShutdownGrace bounds how long Serve waits for cancelled turns to end
	// after the client disconnects.
	ShutdownGrace time.Duration
	// Started, when set, runs once the editor's first message has been
	// handled and the connection is running. Set-up that the first answer
	// does not need (cordis installs its signal handlers there) then
	// stays off the path to it.
	Started func()
}

// turn is a running session/prompt.
type turn struct {
	sessionID string
	requestID jsonrpc2.ID
	ctx       context.Context
	cancel    context.CancelCauseFunc
	done      chan struct{}
}

// Server serves one Agent over one connection.
type Server struct {
	agent  Agent
	client *Client
	stream *lineStream
	log    *slog.Logger
	opts   Options

	mu          sync.Mutex
	initialized bool
	turns       map[string]*turn // by session id: the latest turn
	wg          sync.WaitGroup
	baseCtx     context.Context
	// ready is closed once the client is attached to the connection:
	// the read loop starts inside NewConn, before it can be.
	ready chan struct{}
}

// Serve runs the ACP server on r/w until r reaches EOF or ctx ends. newAgent
// receives the client through which the agent calls the editor. Serve
// returns nil on a clean disconnect, after cancelling running turns and
// calling Agent.Shutdown.
func Serve(ctx context.Context, r io.Reader, w io.Writer, newAgent func(*Client) Agent, opts Options) error {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.ShutdownGrace == 0 {
		opts.ShutdownGrace = 5 * time.Second
	}
	var closer io.Closer
	if c, ok := r.(io.Closer); ok {
		closer = c
	}
	stream := newLineStream(r, w, closer, opts.Logger)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	s := &Server{log: opts.Logger, opts: opts, turns: map[string]*turn{}, baseCtx: ctx, ready: make(chan struct{}), stream: stream}
	s.client = &Client{}
	s.agent = newAgent(s.client)
	s.answerFirst(ctx)
	conn := jsonrpc2.NewConn(ctx, stream, s, jsonrpc2.SetLogger(slogPrintf{opts.Logger}))
	s.client.attach(conn, stream)
	close(s.ready)
	if opts.Started != nil {
		opts.Started()
	}

	select {
	case <-conn.DisconnectNotify():
	case <-ctx.Done():
		conn.Close()
	}
	cancel(errDisconnected)
	finished := make(chan struct{})
	go func() { s.wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(opts.ShutdownGrace):
		s.log.Warn("turns still running at shutdown")
	}
	s.agent.Shutdown(context.Background())
	return nil
}

// initialize runs the agent's Initialize on decoded params, settles the
// protocol version and records the client's capabilities.
func (s *Server) initialize(ctx context.Context, p *InitializeRequest) (*InitializeResponse, error) {
	resp, err := s.agent.Initialize(ctx, p)
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

// Handle implements jsonrpc2.Handler. It runs on the read goroutine.
func (s *Server) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	<-s.ready
	if req.Notif {
		s.notification(ctx, req)
		return
	}
	s.answer(ctx, conn, req)
}

// notification handles one notification.
func (s *Server) notification(ctx context.Context, req *jsonrpc2.Request) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("panic in ACP handler", "method", req.Method, "panic", p, "stack", string(debug.Stack()))
		}
	}()
	s.handleNotification(ctx, req)
}

// answer handles one request and answers it; conn is nil for the first
// request, which is answered before the connection starts.
func (s *Server) answer(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	s.respond(ctx, conn, req.ID, req.Method, func() (any, error) { return s.handleRequest(ctx, conn, req) })
}

// respond answers request id with what handle returns, or with an
// internal error if it panics.
func (s *Server) respond(ctx context.Context, conn *jsonrpc2.Conn, id jsonrpc2.ID, method string, handle func() (any, error)) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("panic in ACP handler", "method", method, "panic", p, "stack", string(debug.Stack()))
			s.replyErr(conn, id, InternalError("internal error handling %s: %v", method, p))
		}
	}()
	result, err := handle()
	if errors.Is(err, errAsync) {
		return
	}
	if err != nil {
		s.replyErr(conn, id, err)
		return
	}
	if err := s.reply(conn, id, result); err != nil {
		s.log.Warn("reply failed", "method", method, "error", err)
		return
	}
	if sid := openedSession(method, result); sid != "" {
		s.agent.SessionOpened(ctx, sid)
	}
}

// errAsync marks a request answered later by its own goroutine.
var errAsync = errors.New("answered asynchronously")

func openedSession(method string, result any) string {
	switch method {
	case MethodSessionNew:
		return result.(*NewSessionResponse).SessionID
	case MethodSessionLoad:
		return result.(*loadResult).sessionID
	case MethodSessionResume:
		return result.(*resumeResult).sessionID
	}
	return ""
}

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

func (s *Server) handleRequest(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	if req.Method == MethodInitialize {
		var p InitializeRequest
		if err := decodeParams(req, &p, "protocolVersion"); err != nil {
			return nil, err
		}
		return s.initialize(ctx, &p)
	}
	if !knownMethod(req.Method) {
		return nil, &Error{Code: CodeMethodNotFound, Message: "method not found: " + req.Method}
	}
	s.mu.Lock()
	initialized := s.initialized
	s.mu.Unlock()
	if !initialized {
		return nil, InvalidRequest("%s before initialize: send initialize first", req.Method)
	}

	switch req.Method {
	case MethodAuthenticate:
		var p AuthenticateRequest
		if err := decodeParams(req, &p, "methodId"); err != nil {
			return nil, err
		}
		return struct{}{}, s.agent.Authenticate(ctx, &p)
	case MethodSessionNew:
		var p NewSessionRequest
		if err := decodeParams(req, &p, "cwd"); err != nil {
			return nil, err
		}
		if err := checkAbsolute("cwd", p.Cwd, p.AdditionalDirectories); err != nil {
			return nil, err
		}
		return s.agent.NewSession(ctx, &p)
	case MethodSessionLoad:
		var p LoadSessionRequest
		if err := decodeParams(req, &p, "sessionId", "cwd"); err != nil {
			return nil, err
		}
		if err := checkAbsolute("cwd", p.Cwd, p.AdditionalDirectories); err != nil {
			return nil, err
		}
		resp, err := s.agent.LoadSession(ctx, &p)
		if err != nil {
			return nil, err
		}
		return &loadResult{resp, p.SessionID}, nil
	case MethodSessionList:
		var p ListSessionsRequest
		if err := decodeOptionalParams(req, &p); err != nil {
			return nil, err
		}
		return s.agent.ListSessions(ctx, &p)
	case MethodSessionResume:
		resumer, ok := s.agent.(SessionResumer)
		if !ok {
			return nil, &Error{Code: CodeMethodNotFound, Message: "method not found: " + req.Method}
		}
		var p ResumeSessionRequest
		if err := decodeParams(req, &p, "sessionId", "cwd"); err != nil {
			return nil, err
		}
		if err := checkAbsolute("cwd", p.Cwd, p.AdditionalDirectories); err != nil {
			return nil, err
		}
		resp, err := resumer.ResumeSession(ctx, &p)
		if err != nil {
			return nil, err
		}
		return &resumeResult{resp, p.SessionID}, nil
	case MethodSessionDelete:
		deleter, ok := s.agent.(SessionDeleter)
		if !ok {
			return nil, &Error{Code: CodeMethodNotFound, Message: "method not found: " + req.Method}
		}
		var p DeleteSessionRequest
		if err := decodeParams(req, &p, "sessionId"); err != nil {
			return nil, err
		}
		s.cancelTurn(p.SessionID, ErrCancelled)
		return struct{}{}, deleter.DeleteSession(ctx, &p)
	case MethodSessionClose:
		var p CloseSessionRequest
		if err := decodeParams(req, &p, "sessionId"); err != nil {
			return nil, err
		}
		s.cancelTurn(p.SessionID, ErrCancelled)
		return struct{}{}, s.agent.CloseSession(ctx, &p)
	case MethodSessionSetMode:
		var p SetSessionModeRequest
		if err := decodeParams(req, &p, "sessionId", "modeId"); err != nil {
			return nil, err
		}
		return struct{}{}, s.agent.SetSessionMode(ctx, &p)
	case MethodSessionSetConfigOption:
		var p SetSessionConfigOptionRequest
		if err := decodeParams(req, &p, "sessionId", "configId", "value"); err != nil {
			return nil, err
		}
		return s.agent.SetSessionConfigOption(ctx, &p)
	case MethodSessionPrompt:
		var p PromptRequest
		if err := decodeParams(req, &p, "sessionId", "prompt"); err != nil {
			return nil, err
		}
		s.startTurn(conn, req.ID, &p)
		return nil, errAsync
	}
	return nil, &Error{Code: CodeMethodNotFound, Message: "method not found: " + req.Method}
}

func knownMethod(m string) bool {
	switch m {
	case MethodAuthenticate, MethodSessionNew, MethodSessionLoad, MethodSessionList,
		MethodSessionClose, MethodSessionSetMode, MethodSessionSetConfigOption, MethodSessionPrompt,
		MethodSessionResume, MethodSessionDelete:
		return true
	}
	return false
}

// startTurn registers the turn synchronously, so a session/cancel that
// follows on the wire always finds it, then runs it on its own goroutine so
// that its reverse calls can be answered by the read loop. A new prompt for
// a session whose turn is still running cancels that turn and starts once
// it has answered.
func (s *Server) startTurn(conn *jsonrpc2.Conn, id jsonrpc2.ID, p *PromptRequest) {
	ctx, cancel := context.WithCancelCause(s.baseCtx)
	t := &turn{sessionID: p.SessionID, requestID: id, ctx: ctx, cancel: cancel, done: make(chan struct{})}
	alongside := false
	if cp, ok := s.agent.(ConcurrentPrompter); ok {
		alongside = cp.RunsAlongside(p)
	}
	s.mu.Lock()
	var prev *turn
	if !alongside {
		prev = s.turns[p.SessionID]
		s.turns[p.SessionID] = t
	}
	s.wg.Add(1)
	s.mu.Unlock()
	if prev != nil {
		prev.cancel(ErrCancelled)
	}
	go func() {
		defer s.wg.Done()
		defer close(t.done)
		defer s.finishTurn(t)
		if prev != nil {
			<-prev.done
		}
		resp, err := s.runPrompt(t, p)
		if errors.Is(context.Cause(ctx), ErrCancelled) {
			// The spec requires `cancelled` after session/cancel, even when
			// the turn failed or finished in the same instant.
			resp, err = &PromptResponse{StopReason: StopCancelled}, nil
		}
		if err != nil {
			s.replyErr(conn, id, err)
			return
		}
		if rerr := s.reply(conn, id, resp); rerr != nil {
			s.log.Warn("prompt reply failed", "error", rerr)
		}
	}()
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

func (s *Server) finishTurn(t *turn) {
	s.mu.Lock()
	if s.turns[t.sessionID] == t {
		delete(s.turns, t.sessionID)
	}
	s.mu.Unlock()
	t.cancel(nil)
}

func (s *Server) cancelTurn(sessionID string, cause error) {
	s.mu.Lock()
	t := s.turns[sessionID]
	s.mu.Unlock()
	if t != nil {
		t.cancel(cause)
	}
}

func (s *Server) handleNotification(ctx context.Context, req *jsonrpc2.Request) {
	switch req.Method {
	case MethodSessionCancel:
		var p CancelNotification
		if err := decodeParams(req, &p, "sessionId"); err != nil {
			s.log.Warn("bad session/cancel", "error", err)
			return
		}
		s.cancelTurn(p.SessionID, ErrCancelled)
	case MethodCancelRequest:
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if err := decodeParams(req, &p, "requestId"); err != nil {
			return
		}
		s.mu.Lock()
		var target *turn
		for _, t := range s.turns {
			if idMatches(t.requestID, p.RequestID) {
				target = t
			}
		}
		s.mu.Unlock()
		if target != nil {
			target.cancel(ErrCancelled)
		}
	default:
		// Unknown notifications (including `_` extensions) are ignored, as the spec asks.
		s.log.Debug("ignored notification", "method", req.Method)
	}
}

func idMatches(id jsonrpc2.ID, raw json.RawMessage) bool {
	want, err := json.Marshal(id)
	return err == nil && strings.TrimSpace(string(raw)) == string(want)
}

// reply answers a request through the line stream's one-encoding path.
func (s *Server) reply(conn *jsonrpc2.Conn, id jsonrpc2.ID, result any) error {
	return s.stream.reply(disconnected(conn), id, result)
}

// disconnected is conn's disconnect channel; before the connection
// exists (conn nil) it is nil, a channel that never closes.
func disconnected(conn *jsonrpc2.Conn) <-chan struct{} {
	if conn == nil {
		return nil
	}
	return conn.DisconnectNotify()
}

func (s *Server) replyErr(conn *jsonrpc2.Conn, id jsonrpc2.ID, err error) {
	var e *Error
	if !errors.As(err, &e) {
		e = InternalError("%v", err)
	}
	rpcErr := &jsonrpc2.Error{Code: e.Code, Message: e.Message}
	if e.Data != nil {
		rpcErr.SetError(e.Data)
	}
	if werr := s.stream.replyError(disconnected(conn), id, rpcErr); werr != nil {
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

func decodeOptionalParams(req *jsonrpc2.Request, v any) error { return decodeParams(req, v) }

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

// slogPrintf adapts jsonrpc2's Printf logger to slog (stderr or a file,
// never stdout).
type slogPrintf struct{ l *slog.Logger }

func (p slogPrintf) Printf(format string, args ...any) {
	p.l.Warn(strings.TrimSpace(fmt.Sprintf(format, args...)))
}
