package mcp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
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

	"github.com/cordis-agent/cordis/internal/proc"
)

// protocolVersion is the MCP revision cordis asks for: the last one with
// the initialize handshake, which every server in use speaks. (The SDK
// would otherwise probe with server/discover of 2026-07-28 first.) Servers
// may answer with an older revision the SDK supports.
const protocolVersion = "2025-11-25"

// server is one configured MCP server and its connection.
type server struct {
	spec Spec
	name string // exposed name (normalized, unique in the manager)
	m    *Manager

	// Set when list_changed arrives; the next Tools / Commands re-lists.
	toolsStale, promptsStale atomic.Bool

	// life ends when the server stops; elicitations in progress end with
	// it, so that closing the session does not wait for the editor.
	life     context.Context
	stopLife context.CancelFunc

	mu sync.Mutex
	cs *sdk.ClientSession
	// conn is the transport's connection, closed before the session on
	// stop so that calls in progress fail at once (the SDK's Close waits
	// for them).
	conn    sdk.Connection
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
	ended   chan struct{} // closed when the connection has ended
	// closeIdle empties the server's HTTP connection pool.
	closeIdle func()
	// calls are the contexts of the calls in progress that may elicit
	// (tools/call, prompts/get), by a key of the server's own.
	calls    map[uint64]context.Context
	lastCall uint64
	// urlWaiting are the server's URL elicitations the user was asked
	// and did not decline, until their completion is notified.
	urlWaiting map[string]bool
}

func newServer(m *Manager, spec Spec, name string) *server {
	s := &server{spec: spec, name: name, m: m, ended: make(chan struct{}), calls: map[uint64]context.Context{}, urlWaiting: map[string]bool{}}
	s.life, s.stopLife = context.WithCancel(context.Background())
	return s
}

func (s *server) transportName() string {
	if s.spec.Type == "" {
		return "stdio"
	}
	return s.spec.Type
}

// handshakeTimeout bounds the server's start, handshake and listings:
// its spec's StartupTimeout, else the Manager's.
func (s *server) handshakeTimeout() time.Duration {
	return cmp.Or(s.spec.StartupTimeout, s.m.opts.HandshakeTimeout)
}

// callTimeout bounds one of the server's calls: its spec's CallTimeout,
// else the Manager's.
func (s *server) callTimeout() time.Duration {
	return cmp.Or(s.spec.CallTimeout, s.m.opts.CallTimeout)
}

// offered counts the tools the server lists that its spec lets be
// offered; s.mu is held.
func (s *server) offered() int {
	n := 0
	for _, t := range s.tools {
		if t != nil && s.spec.offers(t.Name) {
			n++
		}
	}
	return n
}

// connect starts (stdio) or reaches (http, sse) the server, performs the
// handshake and lists its tools and prompts, all within the handshake
// timeout. A failure is kept in s.err and returned.
func (s *server) connect(ctx context.Context) error {
	opts := &s.m.opts
	ctx, cancel := context.WithTimeout(ctx, s.handshakeTimeout())
	defer cancel()

	t, err := s.transport()
	if err != nil {
		return s.fail(err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "cordis", Title: "cordis", Version: opts.Version}, s.clientOptions())
	client.AddReceivingMiddleware(s.refuseUnoffered)
	client.AddRoots(roots(opts.Roots)...)
	cs, err := client.Connect(ctx, keptTransport{t, s}, &sdk.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		return s.fail(s.explain("the MCP handshake", ctx, err))
	}
	s.mu.Lock()
	s.cs = cs
	s.mu.Unlock()
	go s.watch(cs)

	caps := cs.InitializeResult().Capabilities
	var (
		toolList   []*sdk.Tool
		promptList []*sdk.Prompt
	)
	if caps == nil || caps.Tools != nil {
		if toolList, err = s.listTools(ctx, cs); err != nil {
			return s.fail(s.explain("tools/list", ctx, err))
		}
	}
	if caps != nil && caps.Prompts != nil {
		if promptList, err = s.listPrompts(ctx, cs); err != nil {
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

// clientOptions are the SDK client's options for this server. The roots
// capability is offered without listChanged (the roots never change
// during a session); elicitation only with Options.Elicit or ElicitURL:
// form mode alone as {} (the 2025-06-18 shape that 2025-11-25 reads as
// form only too: {"form":{}} would be refused by strict 2025-06-18
// servers, and the version is not known before the answer); with URL
// mode, as 2025-11-25 spells it ({"form":{},"url":{}} or {"url":{}}),
// since there is no other way to say it.
func (s *server) clientOptions() *sdk.ClientOptions {
	o := &sdk.ClientOptions{
		Logger:                   s.m.opts.Logger.With("server", s.spec.Name),
		Capabilities:             &sdk.ClientCapabilities{RootsV2: &sdk.RootCapabilities{}},
		ToolListChangedHandler:   func(context.Context, *sdk.ToolListChangedRequest) { s.toolsStale.Store(true) },
		PromptListChangedHandler: func(context.Context, *sdk.PromptListChangedRequest) { s.promptsStale.Store(true) },
	}
	if s.m.opts.Elicit != nil || s.m.opts.ElicitURL != nil {
		caps := &sdk.ElicitationCapabilities{}
		if s.m.opts.ElicitURL != nil {
			caps.URL = &sdk.URLElicitationCapabilities{}
			if s.m.opts.Elicit != nil {
				caps.Form = &sdk.FormElicitationCapabilities{}
			}
		}
		o.Capabilities.Elicitation = caps
		o.ElicitationHandler = s.elicitation
		o.ElicitationCompleteHandler = s.elicitationComplete
	}
	return o
}

// refuseUnoffered answers "method not found" to the server's requests for
// what cordis does not offer (sampling; elicitation without
// Options.Elicit), where the SDK would answer with codes of its own, so
// that servers fall back as they do for clients without the method.
func (s *server) refuseUnoffered(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method == "sampling/createMessage" {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: " + method}
		}
		if method == "elicitation/create" && s.m.opts.Elicit == nil && s.m.opts.ElicitURL == nil {
			if p, ok := req.GetParams().(*sdk.ElicitParams); ok {
				s.unshown(elicitRequest(s.spec.Name, p))
			}
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: " + method}
		}
		return next(ctx, method, req)
	}
}

func roots(dirs []string) []*sdk.Root {
	out := make([]*sdk.Root, 0, len(dirs))
	for _, d := range dirs {
		out = append(out, &sdk.Root{URI: (&url.URL{Scheme: "file", Path: d}).String(), Name: filepath.Base(d)})
	}
	return out
}

// keptTransport keeps the connection its transport makes, for stop. It
// returns that connection itself, not a wrapper: the SDK finds optional
// behaviour of its own connections by type assertion.
type keptTransport struct {
	sdk.Transport
	s *server
}

// Connect connects within ctx, the handshake's. The connection itself
// lives on the server's life: the SSE transport's event stream is
// requested with the context Connect is given, and would end with the
// handshake's.
func (t keptTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	life, cancel := context.WithCancel(t.s.life)
	stop := context.AfterFunc(ctx, cancel)
	conn, err := t.Transport.Connect(life)
	if !stop() { // ctx ended first: so did the connection
		cancel()
		if err == nil {
			conn.Close()
		}
		return nil, ctx.Err()
	}
	if err != nil {
		cancel()
		return nil, err
	}
	t.s.mu.Lock()
	t.s.conn = conn
	t.s.mu.Unlock()
	return conn, nil
}

// notified marks the lists stale that a list_changed notification names.
// The transports call it on their read path: a notification the server
// sent before an answer is seen before the caller gets that answer.
func (s *server) notified(method string) {
	switch method {
	case "notifications/tools/list_changed":
		s.toolsStale.Store(true)
	case "notifications/prompts/list_changed":
		s.promptsStale.Store(true)
	}
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

// transport builds the SDK transport for the spec; for stdio it starts the
// process, as an owned process group.
func (s *server) transport() (sdk.Transport, error) {
	opts := &s.m.opts
	switch s.spec.Type {
	case "", "stdio":
		if s.spec.Command == "" {
			return nil, fmt.Errorf("no command given")
		}
		env := append(baseEnv(), s.spec.Env...)
		p, err := proc.Start(proc.Cmd{Path: s.spec.Command, Args: s.spec.Args, Dir: s.spec.Dir, Env: env, EnvPolicy: opts.EnvPolicy, OutputLimit: 8 << 10, Grace: opts.StopGrace})
		if err != nil {
			return nil, fmt.Errorf("could not start %s: %v", s.spec.Command, err)
		}
		s.mu.Lock()
		s.proc = p
		s.mu.Unlock()
		go s.watchExit(p)
		return &stdioTransport{p: p, log: opts.Logger.With("server", s.spec.Name), seen: s.notified}, nil
	case "http", "sse":
		if s.spec.URL == "" {
			return nil, fmt.Errorf("no url given")
		}
		origin, err := url.Parse(s.spec.URL)
		if err != nil {
			return nil, fmt.Errorf("bad url: %v", err)
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
		hc := &http.Client{Transport: &editorTransport{base: base, origin: origin, headers: s.spec.Headers, sameOriginOnly: s.spec.Type == "sse", life: s.life, seen: s.notified}}
		if s.spec.Type == "sse" {
			return &sdk.SSEClientTransport{Endpoint: s.spec.URL, HTTPClient: hc, MaxEventSize: maxMessageSize}, nil
		}
		return &sdk.StreamableClientTransport{Endpoint: s.spec.URL, HTTPClient: hc, MaxEventSize: maxMessageSize}, nil
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

// watch marks an http or sse server whose connection ends on its own as
// stopped. (A stdio server's end is explained by watchExit.)
func (s *server) watch(cs *sdk.ClientSession) {
	err := cs.Wait()
	close(s.ended)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing || s.err != nil || s.proc != nil {
		return
	}
	s.err = s.lostConnection(err)
}

// lostConnection says how an http or sse server's connection ended, as a
// phrase about the server.
func (s *server) lostConnection(err error) error {
	switch {
	case errors.Is(err, sdk.ErrSessionMissing):
		return errors.New("ended the MCP session")
	case s.spec.Type == "sse":
		return errors.New("closed its event stream")
	}
	return errors.New("closed the connection")
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
		return fmt.Errorf("did not answer %s within %s", what, s.handshakeTimeout())
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

// endedWait bounds waitEnded: a request can fail (a POST cut off) a moment
// before the client notices that the server closed its stream.
const endedWait = 500 * time.Millisecond

// waitEnded gives an http or sse connection whose request failed a moment
// to end, so the message can say the server went away. It reports whether
// the connection has ended.
func (s *server) waitEnded() bool {
	t := time.NewTimer(min(s.m.opts.StopGrace, endedWait))
	defer t.Stop()
	select {
	case <-s.ended:
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

// stop closes the connection and stops the process group. It is
// idempotent.
func (s *server) stop() {
	s.mu.Lock()
	s.closing = true
	cs, conn, p, closeIdle := s.cs, s.conn, s.proc, s.closeIdle
	s.mu.Unlock()
	if conn != nil {
		conn.Close() // first: a streamable HTTP session is ended with a DELETE
	}
	s.stopLife()
	if cs != nil {
		cs.Close()
	}
	if closeIdle != nil {
		closeIdle()
	}
	if p != nil {
		p.Stop(s.m.opts.StopGrace)
	}
}

// session returns the connection, or why the server is unusable.
func (s *server) session() (*sdk.ClientSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	return s.cs, nil
}

// track records ctx as the context of a call in progress that may elicit
// (see ElicitFunc), until the returned function is called.
func (s *server) track(ctx context.Context) (untrack func()) {
	s.mu.Lock()
	s.lastCall++
	key := s.lastCall
	s.calls[key] = ctx
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		delete(s.calls, key)
		s.mu.Unlock()
	}
}

// brokenConnection decides, after a request failed, whether the server is
// gone; if so it is marked stopped and the reason is returned.
func (s *server) brokenConnection(err error) error {
	var wire *jsonrpc.Error
	if errors.As(err, &wire) {
		return nil // the server answered: it is alive
	}
	var gone error
	if p := s.process(); p != nil {
		if !s.waitExit(p) {
			return nil
		}
		gone = s.exitError("stopped")
	} else {
		if !errors.Is(err, sdk.ErrConnectionClosed) && !errors.Is(err, sdk.ErrSessionMissing) && !s.waitEnded() {
			return nil
		}
		gone = s.lostConnection(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = gone
	}
	return s.err
}

// listTools lists the server's tools, page by page.
func (s *server) listTools(ctx context.Context, cs *sdk.ClientSession) ([]*sdk.Tool, error) {
	return listAll(s, "tools/list", func(cursor string) ([]*sdk.Tool, string, error) {
		res, err := cs.ListTools(ctx, &sdk.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return res.Tools, res.NextCursor, nil
	})
}

// listPrompts lists the server's prompts, page by page.
func (s *server) listPrompts(ctx context.Context, cs *sdk.ClientSession) ([]*sdk.Prompt, error) {
	return listAll(s, "prompts/list", func(cursor string) ([]*sdk.Prompt, string, error) {
		res, err := cs.ListPrompts(ctx, &sdk.ListPromptsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return res.Prompts, res.NextCursor, nil
	})
}

// listAll follows nextCursor. A server that repeats a cursor would be
// paged forever (as the SDK's iterators would): the list stops there.
func listAll[T any](s *server, method string, page func(cursor string) ([]T, string, error)) ([]T, error) {
	var out []T
	seen := map[string]bool{}
	cursor := ""
	for {
		items, next, err := page(cursor)
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
		if next == "" {
			return out, nil
		}
		if seen[next] {
			s.m.opts.Logger.Warn("MCP server repeated a page cursor; the list ends there", "server", s.spec.Name, "method", method, "cursor", next)
			return out, nil
		}
		seen[next] = true
		cursor = next
	}
}

// refresh re-lists what a list_changed notification marked stale.
func (s *server) refresh(ctx context.Context) {
	cs, err := s.session()
	if err != nil {
		s.toolsStale.Store(false)
		s.promptsStale.Store(false)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, s.handshakeTimeout())
	defer cancel()
	if s.toolsStale.Swap(false) {
		list, err := s.listTools(ctx, cs)
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
		list, err := s.listPrompts(ctx, cs)
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
