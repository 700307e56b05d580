package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// Agent is what cordis serves over ACP. The Server decodes and validates
// params before calling it, and replies with what it returns; an *Error
// chooses the JSON-RPC error code.
//
// Every method but Prompt runs on the server's request goroutine, one at a
// time and in wire order: a method that calls the client and waits for
// the answer does not deadlock, but the requests after it wait too.
// Prompt runs on its own goroutine with a context that session/cancel
// cancels.
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

// SessionForker is implemented by agents that advertise
// sessionCapabilities.fork; the new session is announced (SessionOpened)
// after the response.
type SessionForker interface {
	ForkSession(ctx context.Context, req *ForkSessionRequest) (*ForkSessionResponse, error)
}

// LoggerOut is implemented by agents that advertise auth.logout.
type LoggerOut interface {
	Logout(ctx context.Context) error
}

// ConcurrentPrompter is implemented by agents that can answer some
// prompts while a turn of the same session is running (slash commands that
// only read state). Such a prompt neither cancels nor waits for the
// running turn. RunsAlongside is called on the request goroutine, when the
// prompt's turn comes in wire order, and must be quick.
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
	// Started, when set, runs once, on the request goroutine, after the
	// first request has been answered (or when the input ends before
	// one was). Set-up the first answer does not need then stays off the
	// path to it: cordis installs its signal handler there, which made
	// the first answer of a cold process up to 0.8 ms later (os/signal
	// starts a goroutine that wants a thread of its own; BENCHMARKS.md).
	Started func()
}

// Server serves one Agent over one connection.
type Server struct {
	agent  Agent
	client *Client
	log    *slog.Logger
	opts   Options

	// queue holds the requests read and not yet handled, in wire order.
	queue requestQueue
	turns turnRegistry

	mu          sync.Mutex
	initialized bool

	// running counts the request goroutine and the turns: Serve waits for
	// them before Agent.Shutdown.
	running sync.WaitGroup
	baseCtx context.Context
}

// Serve runs the ACP server on r/w until r reaches EOF or ctx ends. newAgent
// receives the client through which the agent calls the editor. Serve
// returns nil on a clean disconnect, after answering the requests read
// before EOF, cancelling running turns and calling Agent.Shutdown.
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

	s := &Server{log: opts.Logger, opts: opts, baseCtx: ctx}
	s.queue.init()
	s.turns.init()
	s.client = &Client{}
	s.agent = newAgent(s.client)
	in := drainingStream{stream, s.drain}
	// The read loop starts inside NewConn, and may take requests in before
	// the client is attached: intake needs only the queue and the turns,
	// and the request goroutine, the first to call the agent, starts after.
	conn := jsonrpc2.NewConn(ctx, in, s, jsonrpc2.SetLogger(slogPrintf{opts.Logger}))
	s.client.attach(conn, stream)
	s.running.Go(s.handleQueue)

	select {
	case <-conn.DisconnectNotify():
	case <-ctx.Done():
		conn.Close()
	}
	cancel(errDisconnected)
	s.shutdown()
	return nil
}

// shutdown waits (at most ShutdownGrace) for the request goroutine and the
// cancelled turns, then shuts the agent down.
func (s *Server) shutdown() {
	finished := make(chan struct{})
	go func() { s.running.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(s.opts.ShutdownGrace):
		s.log.Warn("turns still running at shutdown")
	}
	s.agent.Shutdown(context.Background())
}

// drain waits, at most ShutdownGrace, until the requests read so far have
// been answered. The bound is for a method that waits for an answer from
// the editor, which cannot come once the input has ended: closing the
// connection then releases it.
func (s *Server) drain() {
	ctx, cancel := context.WithTimeout(s.baseCtx, s.opts.ShutdownGrace)
	defer cancel()
	s.queue.waitIdle(ctx)
}

// drainingStream holds back the end of the input until the requests read
// before it have been answered: jsonrpc2 closes the connection, and so
// refuses every reply, as soon as ReadObject fails.
type drainingStream struct {
	*lineStream
	drain func()
}

func (d drainingStream) ReadObject(v any) error {
	err := d.lineStream.ReadObject(v)
	if err != nil {
		d.drain()
	}
	return err
}

// slogPrintf adapts jsonrpc2's Printf logger to slog (stderr or a file,
// never stdout).
type slogPrintf struct{ l *slog.Logger }

func (p slogPrintf) Printf(format string, args ...any) {
	p.l.Warn(strings.TrimSpace(fmt.Sprintf(format, args...)))
}
