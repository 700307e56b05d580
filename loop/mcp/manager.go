package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/cordis-agent/cordis/internal/proc"
	"github.com/cordis-agent/cordis/loop/commands"
	"github.com/cordis-agent/cordis/loop/tools"
)

// Spec is one MCP server as the editor configured it (ACP's McpServer).
type Spec struct {
	// Name is the server's name; tools are exposed as mcp__<Name>__<tool>.
	Name string
	// Type is "stdio" (or ""), "http" (streamable HTTP) or "sse".
	Type string

	// Command, Args and Env start a stdio server, in Dir. Env entries are
	// "NAME=value", added to the agent's environment.
	Command string
	Args    []string
	Env     []string
	Dir     string

	// URL and Headers reach an http or sse server.
	URL     string
	Headers []Header

	// Origin names where the server was configured, for messages and
	// /doctor ("": the editor).
	Origin string

	// StartupTimeout and CallTimeout, when set, replace the Options'
	// HandshakeTimeout and CallTimeout for this server (a setup's
	// per-server timeouts).
	StartupTimeout, CallTimeout time.Duration
	// EnabledTools, when not nil, are the only tools of the server that
	// are offered; DisabledTools are never offered (Codex's
	// enabled_tools and disabled_tools). Both name the server's tools as
	// it lists them.
	EnabledTools, DisabledTools []string
}

// offers reports whether the spec lets the server's tool named name be
// offered.
func (sp *Spec) offers(name string) bool {
	if sp.EnabledTools != nil && !slices.Contains(sp.EnabledTools, name) {
		return false
	}
	return !slices.Contains(sp.DisabledTools, name)
}

// Header is one HTTP header sent to an http or sse server.
type Header struct{ Name, Value string }

// Defaults of Options.
const (
	DefaultHandshakeTimeout = 10 * time.Second
	DefaultCallTimeout      = 120 * time.Second
	DefaultStopGrace        = 2 * time.Second
)

// Options tune a Manager. The zero value is usable.
type Options struct {
	// HandshakeTimeout bounds starting a server, the MCP handshake and the
	// first tools/list and prompts/list (and each later re-list).
	HandshakeTimeout time.Duration
	// CallTimeout bounds one tools/call or prompts/get.
	CallTimeout time.Duration
	// StopGrace is how long a stdio server gets to exit after its stdin is
	// closed before its process group is signalled (SIGTERM, then SIGKILL
	// after as long again).
	StopGrace time.Duration
	// Roots are offered to servers that ask for roots (the session's
	// directories, absolute).
	Roots []string
	// HTTPClient's Transport, when set, carries http and sse traffic.
	HTTPClient *http.Client
	// Version is cordis's version, sent as the client's version.
	Version string
	// MaxOutputTokens caps the text of one tool result that goes to the
	// model, in tokens estimated as bytes/4 (DefaultMaxOutputTokens when
	// not positive); the rest is cut and the model told (capResult).
	MaxOutputTokens int
	// EnvPolicy decides what of cordis's environment a stdio server
	// inherits (nil: proc.DefaultEnvPolicy).
	EnvPolicy *proc.EnvPolicy
	Logger    *slog.Logger
	// Elicit, when set, answers the servers' form elicitations
	// (elicitation/create), and the elicitation capability is offered in
	// initialize. When nil (and ElicitURL too) it is not offered, and a
	// server that asks anyway is answered "method not found". See
	// ElicitFunc.
	Elicit ElicitFunc
	// ElicitURL, when set, answers the servers' URL-mode elicitations
	// (the request carries URL and ElicitationID), and URL mode is
	// offered too. A request in a mode not offered is refused (-32602)
	// without asking.
	ElicitURL ElicitFunc
	// ElicitationComplete, when set, is told of a server's
	// notifications/elicitation/complete for a URL elicitation that
	// ElicitURL was asked and that was not declined or cancelled, once
	// per elicitation; others (unknown, already complete) are ignored.
	ElicitationComplete func(server, elicitationID string)
	// Unshown, when set, is told of each elicitation refused because the
	// editor cannot show its mode, so that the user learns what the
	// server wanted. It and ElicitationComplete are called on the
	// servers' connection goroutines, possibly at once.
	Unshown func(ElicitRequest)
}

func (o *Options) setDefaults() {
	if o.HandshakeTimeout <= 0 {
		o.HandshakeTimeout = DefaultHandshakeTimeout
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.StopGrace <= 0 {
		o.StopGrace = DefaultStopGrace
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// Manager owns the MCP servers of one session: their connections and
// processes, the tools and prompt commands derived from them.
type Manager struct {
	opts    Options
	servers []*server

	mu sync.Mutex
	// tools and commands are rebuilt when a server's lists change.
	tools      []tools.Tool
	toolsKey   []uint64
	cmds       []commands.Command
	cmdsKey    []uint64
	cmdsGen    uint64
	failsShown bool

	closeOnce sync.Once
}

// Start connects to every server at once and returns when each has
// answered or failed (each within the handshake timeout). A server that
// fails does not stop the others; its failure is reported by Failures and
// Status.
func Start(ctx context.Context, specs []Spec, opts Options) *Manager {
	opts.setDefaults()
	m := &Manager{opts: opts}
	names := make([]string, len(specs))
	for i, sp := range specs {
		names[i] = sp.Name
	}
	exposed := serverNames(names)
	for i, sp := range specs {
		m.servers = append(m.servers, newServer(m, sp, exposed[i]))
	}
	var wg sync.WaitGroup
	for _, s := range m.servers {
		wg.Go(func() {
			if err := s.connect(ctx); err != nil {
				m.opts.Logger.Warn("MCP server failed to start", "server", s.spec.Name, "transport", s.transportName(), "error", err)
			} else {
				m.opts.Logger.Info("MCP server connected", "server", s.spec.Name, "transport", s.transportName())
			}
		})
	}
	wg.Wait()
	return m
}

// refresh re-lists the servers whose lists changed.
func (m *Manager) refresh(ctx context.Context) {
	for _, s := range m.servers {
		if s.toolsStale.Load() || s.promptsStale.Load() {
			s.refresh(ctx)
		}
	}
}

// Tools returns the tools of every server that started, in server order,
// then in each server's order. A list_changed notification received since
// the last call is honoured first (the servers concerned are re-listed).
// Tools of a server that stopped stay listed; calling them returns an error
// result.
func (m *Manager) Tools(ctx context.Context) []tools.Tool {
	if m == nil {
		return nil
	}
	m.refresh(ctx)
	key := make([]uint64, len(m.servers))
	for i, s := range m.servers {
		s.mu.Lock()
		key[i] = s.toolsVersion
		s.mu.Unlock()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tools != nil && equalKeys(key, m.toolsKey) {
		return append([]tools.Tool(nil), m.tools...)
	}
	n := newNamer(MaxNameLen)
	out := []tools.Tool{}
	for _, s := range m.servers {
		s.mu.Lock()
		list := s.tools
		s.mu.Unlock()
		for _, rt := range list {
			if rt == nil || !s.spec.offers(rt.Name) {
				continue
			}
			out = append(out, newTool(s, n.assign(s.name, rt.Name), rt))
		}
	}
	m.tools, m.toolsKey = out, key
	return append([]tools.Tool(nil), out...)
}

// Commands returns the prompt commands (/mcp__<server>__<prompt>) of every
// server that started, and a generation that changes whenever the list is
// rebuilt, so a caller can tell when to re-advertise it.
func (m *Manager) Commands(ctx context.Context) (uint64, []commands.Command) {
	if m == nil {
		return 0, nil
	}
	m.refresh(ctx)
	key := make([]uint64, len(m.servers))
	for i, s := range m.servers {
		s.mu.Lock()
		key[i] = s.promptsVersion
		s.mu.Unlock()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cmdsKey != nil && equalKeys(key, m.cmdsKey) {
		return m.cmdsGen, append([]commands.Command(nil), m.cmds...)
	}
	n := newNamer(1 << 10)
	var out []commands.Command
	for _, s := range m.servers {
		s.mu.Lock()
		list := s.prompts
		s.mu.Unlock()
		for _, p := range list {
			if p == nil {
				continue
			}
			out = append(out, promptCommand(s, n.assign(s.name, p.Name), p))
		}
	}
	m.cmds, m.cmdsKey = out, key
	m.cmdsGen++
	return m.cmdsGen, append([]commands.Command(nil), out...)
}

func equalKeys(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Status is the state of one server, for /doctor.
type Status struct {
	Name      string
	Transport string // stdio, http, sse
	// OK is false when the server failed to start or stopped; Err says why.
	OK      bool
	Err     string
	Tools   int
	Prompts int
	// Origin is the Spec's ("": the editor).
	Origin string
}

// Line is the status as one /doctor line.
func (st Status) Line() string {
	name := st.Name
	if st.Origin != "" {
		name += " from " + st.Origin
	}
	if !st.OK {
		return fmt.Sprintf("✗ MCP server %s (%s): %s", name, st.Transport, st.Err)
	}
	return fmt.Sprintf("✓ MCP server %s (%s): %s, %s", name, st.Transport, plural(st.Tools, "tool"), plural(st.Prompts, "prompt"))
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// Status reports every server, in the order the editor listed them.
func (m *Manager) Status() []Status {
	if m == nil {
		return nil
	}
	out := make([]Status, 0, len(m.servers))
	for _, s := range m.servers {
		s.mu.Lock()
		st := Status{Name: s.spec.Name, Transport: s.transportName(), OK: s.err == nil && s.started, Tools: s.offered(), Prompts: len(s.prompts), Origin: s.spec.Origin}
		if s.err != nil {
			st.Err = s.err.Error()
		}
		s.mu.Unlock()
		out = append(out, st)
	}
	return out
}

// Failures returns one message per server that failed to start, the first
// time it is called; later calls return nil (the editor is told once).
func (m *Manager) Failures() []string {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	shown := m.failsShown
	m.failsShown = true
	m.mu.Unlock()
	if shown {
		return nil
	}
	var out []string
	for _, s := range m.servers {
		s.mu.Lock()
		if !s.started && s.err != nil {
			out = append(out, fmt.Sprintf("MCP server %q (%s) is unavailable: %v", s.spec.Name, s.transportName(), s.err))
		}
		s.mu.Unlock()
	}
	return out
}

// Close closes every connection and stops every stdio server's process
// group, all at once; it returns when they are gone. Calls in progress
// fail. Close is idempotent.
func (m *Manager) Close() {
	if m == nil {
		return
	}
	m.closeOnce.Do(func() {
		var wg sync.WaitGroup
		for _, s := range m.servers {
			wg.Go(s.stop)
		}
		wg.Wait()
	})
}
