package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cordis-agent/cordis/loop/tools/proc"
)

// protocolVersion is the MCP revision cordis asks for. It is pinned to the
// last revision with the initialize handshake and session-wide list_changed
// notifications, which every server in use speaks; servers may answer with
// an older one.
const protocolVersion = "2025-11-25"

// server is one configured MCP server and its connection.
type server struct {
	spec Spec
	name string // exposed name (normalized, unique in the manager)
	m    *Manager

	// Set when list_changed arrives; the next Tools / Commands re-lists.
	toolsStale, promptsStale atomic.Bool

	mu      sync.Mutex
	cs      *sdk.ClientSession
	proc    *proc.Process
	tools   []*sdk.Tool
	prompts []*sdk.Prompt
	// version counts changes of tools/prompts, so the manager knows when
	// to rebuild what it derived from them.
	toolsVersion, promptsVersion uint64
	// err is why the server is unusable: it failed to start, or stopped.
	err     error
	started bool // the handshake succeeded once
	closing bool
	// cancelConn ends a detached transport context (sse).
	cancelConn context.CancelFunc
	// closeIdle empties the server's HTTP connection pool.
	closeIdle func()
}

func (s *server) transportName() string {
	if s.spec.Type == "" {
		return "stdio"
	}
	return s.spec.Type
}

// connect starts (stdio) or reaches (http, sse) the server, performs the
// handshake and lists its tools and prompts, all within the handshake
// timeout. A failure is kept in s.err and returned.
func (s *server) connect(ctx context.Context) error {
	opts := &s.m.opts
	ctx, cancel := context.WithTimeout(ctx, opts.HandshakeTimeout)
	defer cancel()

	t, err := s.transport()
	if err != nil {
		return s.fail(err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "cordis", Title: "cordis", Version: opts.Version}, &sdk.ClientOptions{
		Logger:                   opts.Logger,
		Capabilities:             &sdk.ClientCapabilities{RootsV2: &sdk.RootCapabilities{}},
		ToolListChangedHandler:   func(context.Context, *sdk.ToolListChangedRequest) { s.toolsStale.Store(true) },
		PromptListChangedHandler: func(context.Context, *sdk.PromptListChangedRequest) { s.promptsStale.Store(true) },
	})
	for _, r := range opts.Roots {
		client.AddRoots(&sdk.Root{URI: (&url.URL{Scheme: "file", Path: r}).String(), Name: filepath.Base(r)})
	}
	cs, err := client.Connect(ctx, t, &sdk.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		return s.fail(s.explain("the MCP handshake", ctx, err))
	}
	s.mu.Lock()
	s.cs = cs
	s.mu.Unlock()

	caps := cs.InitializeResult().Capabilities
	var (
		toolList   []*sdk.Tool
		promptList []*sdk.Prompt
	)
	if caps == nil || caps.Tools != nil {
		if toolList, err = listTools(ctx, cs); err != nil {
			return s.fail(s.explain("tools/list", ctx, err))
		}
	}
	if caps != nil && caps.Prompts != nil {
		if promptList, err = listPrompts(ctx, cs); err != nil {
			return s.fail(s.explain("prompts/list", ctx, err))
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tools, s.prompts, s.started = toolList, promptList, true
	s.toolsVersion++
	s.promptsVersion++
	return nil
}

// inheritedEnv are the variables of the agent's environment a stdio server
// inherits, as in the reference MCP clients: enough to find programs and
// run them, without the agent's credentials (ANTHROPIC_API_KEY and the
// like). Anything else a server needs comes from the editor's env entries.
var inheritedEnv = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ"}

func baseEnv() []string {
	var out []string
	for _, k := range inheritedEnv {
		if v, ok := os.LookupEnv(k); ok {
			out = append(out, k+"="+v)
		}
	}
	return out
}

// transport builds the client transport for the spec; for stdio it starts
// the process, as an owned process group.
func (s *server) transport() (sdk.Transport, error) {
	opts := &s.m.opts
	switch s.spec.Type {
	case "", "stdio":
		if s.spec.Command == "" {
			return nil, fmt.Errorf("no command given")
		}
		env := append(baseEnv(), s.spec.Env...)
		p, err := proc.Start(proc.Cmd{Path: s.spec.Command, Args: s.spec.Args, Dir: s.spec.Dir, Env: env, OutputLimit: 8 << 10, Grace: opts.StopGrace})
		if err != nil {
			return nil, fmt.Errorf("could not start %s: %v", s.spec.Command, err)
		}
		s.mu.Lock()
		s.proc = p
		s.mu.Unlock()
		go s.watchExit(p)
		return &watchTransport{inner: &sdk.IOTransport{Reader: p.Stdout(), Writer: p.Stdin()}, s: s}, nil
	case "http", "sse":
		if s.spec.URL == "" {
			return nil, fmt.Errorf("no url given")
		}
		var base http.RoundTripper
		if opts.HTTPClient != nil && opts.HTTPClient.Transport != nil {
			base = opts.HTTPClient.Transport
		} else {
			// Its own pool, emptied when the server stops.
			own := http.DefaultTransport.(*http.Transport).Clone()
			s.mu.Lock()
			s.closeIdle = own.CloseIdleConnections
			s.mu.Unlock()
			base = own
		}
		hc := &http.Client{Transport: headerTransport{base: base, headers: s.spec.Headers}}
		if s.spec.Type == "sse" {
			return &watchTransport{inner: &sdk.SSEClientTransport{Endpoint: s.spec.URL, HTTPClient: hc}, s: s, detach: true}, nil
		}
		// Not wrapped: the streamable connection relies on optional
		// interfaces a wrapper would hide. list_changed arrives through the
		// client's handlers instead.
		return &sdk.StreamableClientTransport{Endpoint: s.spec.URL, HTTPClient: hc}, nil
	}
	return nil, fmt.Errorf("unknown transport type %q (valid: stdio, http, sse)", s.spec.Type)
}

// watchExit marks a stdio server that exits on its own as stopped.
func (s *server) watchExit(p *proc.Process) {
	<-p.Done()
	s.mu.Lock()
	defer s.mu.Unlock()
	// During the handshake, connect explains the failure itself.
	if s.closing || s.err != nil || !s.started {
		return
	}
	s.err = s.exitError("stopped")
}

// exitError describes how the process ended, with the tail of its stderr.
func (s *server) exitError(what string) error {
	detail := s.proc.ExitStatus()
	if tail := stderrTail(s.proc.Stderr()); tail != "" {
		detail += "; stderr: " + tail
	}
	return fmt.Errorf("%s (%s)", what, detail)
}

func stderrTail(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	s = strings.Join(lines, " | ")
	if r := []rune(s); len(r) > 500 {
		s = "…" + string(r[len(r)-500:])
	}
	return s
}

// explain turns an error of a request made during the handshake into a
// message for the user.
func (s *server) explain(what string, ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("did not answer %s within %s", what, s.m.opts.HandshakeTimeout)
	}
	if p := s.process(); p != nil {
		if s.waitExit(p) {
			return s.exitError("exited during " + what)
		}
	}
	return fmt.Errorf("%s failed: %v", what, err)
}

func (s *server) process() *proc.Process {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc
}

// waitExit gives a process whose connection broke a moment to exit, so the
// message can say how it ended. It reports whether it has exited.
func (s *server) waitExit(p *proc.Process) bool {
	t := time.NewTimer(s.m.opts.StopGrace)
	defer t.Stop()
	select {
	case <-p.Done():
		return true
	case <-t.C:
		return false
	}
}

// fail records why the server is unusable and releases what it holds.
func (s *server) fail(err error) error {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	err = s.err
	s.mu.Unlock()
	s.stop()
	return err
}

// failure returns why the server is unusable, or nil.
func (s *server) failure() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// stop closes the session and stops the process group. It is idempotent.
func (s *server) stop() {
	s.mu.Lock()
	s.closing = true
	cs, p, cancel, closeIdle := s.cs, s.proc, s.cancelConn, s.closeIdle
	s.mu.Unlock()
	if cs != nil {
		if err := cs.Close(); err != nil {
			s.m.opts.Logger.Debug("closing MCP session", "server", s.spec.Name, "error", err)
		}
	}
	if cancel != nil {
		cancel()
	}
	if closeIdle != nil {
		closeIdle()
	}
	if p != nil {
		p.Stop(s.m.opts.StopGrace)
	}
}

// session returns the live client session, or why there is none.
func (s *server) session() (*sdk.ClientSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	if s.cs == nil {
		return nil, errors.New("not connected")
	}
	return s.cs, nil
}

// brokenConnection decides, after a request failed, whether the server is
// gone; if so it is marked stopped and the reason is returned.
func (s *server) brokenConnection(err error) error {
	var wire *jsonrpc.Error
	if errors.As(err, &wire) {
		return nil // the server answered: it is alive
	}
	p := s.process()
	if p != nil {
		if !s.waitExit(p) {
			return nil
		}
		s.mu.Lock()
		if s.err == nil {
			s.err = s.exitError("stopped")
		}
		err = s.err
		s.mu.Unlock()
		return err
	}
	if errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, io.EOF) {
		s.mu.Lock()
		if s.err == nil {
			s.err = fmt.Errorf("connection closed: %v", err)
		}
		err = s.err
		s.mu.Unlock()
		return err
	}
	return nil
}

// refresh re-lists what a list_changed notification marked stale.
func (s *server) refresh(ctx context.Context) {
	cs, err := s.session()
	if err != nil {
		s.toolsStale.Store(false)
		s.promptsStale.Store(false)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, s.m.opts.HandshakeTimeout)
	defer cancel()
	if s.toolsStale.Swap(false) {
		list, err := listTools(ctx, cs)
		if err != nil {
			s.m.opts.Logger.Warn("MCP tools/list after list_changed failed", "server", s.spec.Name, "error", err)
			s.brokenConnection(err)
		} else {
			s.mu.Lock()
			s.tools = list
			s.toolsVersion++
			s.mu.Unlock()
		}
	}
	if s.promptsStale.Swap(false) {
		list, err := listPrompts(ctx, cs)
		if err != nil {
			s.m.opts.Logger.Warn("MCP prompts/list after list_changed failed", "server", s.spec.Name, "error", err)
			s.brokenConnection(err)
		} else {
			s.mu.Lock()
			s.prompts = list
			s.promptsVersion++
			s.mu.Unlock()
		}
	}
}

func listTools(ctx context.Context, cs *sdk.ClientSession) ([]*sdk.Tool, error) {
	var out []*sdk.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func listPrompts(ctx context.Context, cs *sdk.ClientSession) ([]*sdk.Prompt, error) {
	var out []*sdk.Prompt
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// headerTransport adds the configured headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers []Header
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		r = r.Clone(r.Context())
		for _, hd := range h.headers {
			r.Header.Set(hd.Name, hd.Value)
		}
	}
	return h.base.RoundTrip(r)
}

// watchTransport marks tools or prompts stale as soon as the connection
// reads a list_changed notification, on the read path: a notification the
// server sent before a response is seen before the caller gets that
// response (the client's notification handlers run later, on their own
// goroutine).
//
// With detach, the inner transport is connected with a context that the
// handshake timeout cancels only while Connect runs: the SSE transport
// keeps its event stream on that context, which must outlive the
// handshake. The server's stop cancels it.
type watchTransport struct {
	inner  sdk.Transport
	s      *server
	detach bool
}

func (t *watchTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	if !t.detach {
		c, err := t.inner.Connect(ctx)
		if err != nil {
			return nil, err
		}
		return &watchConn{Connection: c, s: t.s}, nil
	}
	life, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	c, err := t.inner.Connect(life)
	if !stop() || err != nil {
		cancel()
		if err == nil {
			c.Close()
			err = ctx.Err()
		}
		return nil, err
	}
	t.s.mu.Lock()
	t.s.cancelConn = cancel
	t.s.mu.Unlock()
	return &watchConn{Connection: c, s: t.s}, nil
}

type watchConn struct {
	sdk.Connection
	s *server
}

func (c *watchConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && !req.IsCall() {
		switch req.Method {
		case "notifications/tools/list_changed":
			c.s.toolsStale.Store(true)
		case "notifications/prompts/list_changed":
			c.s.promptsStale.Store(true)
		}
	}
	return msg, err
}
