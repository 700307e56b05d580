package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cordis-agent/cordis/internal/proc"
)

// server is one configured MCP server and its connection.
type server struct {
	spec Spec
	name string // exposed name (normalized, unique in the manager)
	m    *Manager

	// Set when list_changed arrives; the next Tools / Commands re-lists.
	toolsStale, promptsStale atomic.Bool

	mu      sync.Mutex
	c       *client
	proc    *proc.Process
	tools   []*remoteTool
	prompts []*remotePrompt
	// version counts changes of tools/prompts, so the manager knows when
	// to rebuild what it derived from them.
	toolsVersion, promptsVersion uint64
	// err is why the server is unusable: it failed to start, or stopped.
	err     error
	started bool // the handshake succeeded once
	closing bool
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
	c := newClient(t, opts.Logger.With("server", s.spec.Name), opts.Roots, s.notified)
	c.server, c.elicit = s.spec.Name, opts.Elicit
	s.mu.Lock()
	s.c = c
	s.mu.Unlock()
	res, err := c.connect(ctx, opts.Version)
	if err != nil {
		return s.fail(s.explain("the MCP handshake", ctx, err))
	}

	caps := res.Capabilities
	var (
		toolList   []*remoteTool
		promptList []*remotePrompt
	)
	if caps == nil || caps.Tools != nil {
		if toolList, err = c.listTools(ctx); err != nil {
			return s.fail(s.explain("tools/list", ctx, err))
		}
	}
	if caps != nil && caps.Prompts != nil {
		if promptList, err = c.listPrompts(ctx); err != nil {
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

// notified marks the lists stale that a list_changed notification names.
// It runs on the connection's read path: a notification the server sent
// before an answer is seen before the caller gets that answer.
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

// transport builds the transport for the spec; for stdio it starts the
// process, as an owned process group.
func (s *server) transport() (transport, error) {
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
		return &stdioTransport{p: p}, nil
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
			return newSSETransport(s.spec.URL, hc), nil
		}
		return newStreamableTransport(s.spec.URL, hc, opts.StopGrace, opts.Logger.With("server", s.spec.Name)), nil
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

// stop closes the connection and stops the process group. It is
// idempotent.
func (s *server) stop() {
	s.mu.Lock()
	s.closing = true
	c, p, closeIdle := s.c, s.proc, s.closeIdle
	s.mu.Unlock()
	if c != nil {
		c.close()
	}
	if closeIdle != nil {
		closeIdle()
	}
	if p != nil {
		p.Stop(s.m.opts.StopGrace)
	}
}

// session returns the connection, or why the server is unusable.
func (s *server) session() (*client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	return s.c, nil
}

// brokenConnection decides, after a request failed, whether the server is
// gone; if so it is marked stopped and the reason is returned.
func (s *server) brokenConnection(err error) error {
	var wire *rpcError
	if errors.As(err, &wire) || errors.Is(err, errBadAnswer) {
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
	if errors.Is(err, errClosed) {
		s.mu.Lock()
		if s.err == nil {
			s.err = err
		}
		err = s.err
		s.mu.Unlock()
		return err
	}
	return nil
}

// refresh re-lists what a list_changed notification marked stale.
func (s *server) refresh(ctx context.Context) {
	c, err := s.session()
	if err != nil {
		s.toolsStale.Store(false)
		s.promptsStale.Store(false)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, s.m.opts.HandshakeTimeout)
	defer cancel()
	if s.toolsStale.Swap(false) {
		list, err := c.listTools(ctx)
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
		list, err := c.listPrompts(ctx)
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
