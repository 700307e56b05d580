package loop

import (
	"context"
	"fmt"
	"net/netip"
	"strconv"
	"sync"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/internal/netproxy"
	"github.com/cordis-agent/cordis/internal/sandbox"
)

// netAccess is a session's filtering proxy for confined commands and the
// user's answers about hosts: the first connection to a host the settings
// neither allow nor deny asks the user, once per host for the session.
type netAccess struct {
	once  sync.Once
	proxy *netproxy.Proxy // nil: none could start, or the kernel cannot limit TCP

	mu      sync.Mutex
	answers map[string]*hostAnswer
	asked   int
}

// hostAnswer is the user's answer about a host, or the question still
// open (done closed once answered).
type hostAnswer struct {
	done    chan struct{}
	allowed bool
}

// proxyFor returns the session's proxy, started on first use; nil when
// Landlock cannot restrict TCP to its port (the command then has no
// network at all).
func (s *Session) proxyFor() *netproxy.Proxy {
	n := &s.net
	n.once.Do(func() {
		if sandbox.Check().ABI < 4 {
			return
		}
		p, err := netproxy.Start(s.decideHost, netproxy.Options{AllowPrivate: s.privateHostAllowed})
		if err != nil {
			s.agent.log.Warn("sandbox proxy", "session", s.id, "error", err)
			return
		}
		n.proxy = p
	})
	return n.proxy
}

func (s *Session) closeProxy() {
	n := &s.net
	n.once.Do(func() {}) // none may start after this
	if n.proxy != nil {
		n.proxy.Close()
	}
}

// decideHost is the proxy's decision: a denied domain never, an allowed
// one always, any other as the user answers (asked once per host).
func (s *Session) decideHost(ctx context.Context, host string, port int) bool {
	sb := s.settings.Sandbox
	for _, d := range sb.DeniedDomains {
		if netproxy.MatchDomain(d, host, port) {
			return false
		}
	}
	for _, d := range sb.AllowedDomains {
		if netproxy.MatchDomain(d, host, port) {
			return true
		}
	}
	n := &s.net
	n.mu.Lock()
	if n.answers == nil {
		n.answers = map[string]*hostAnswer{}
	}
	a, known := n.answers[host]
	if !known {
		a = &hostAnswer{done: make(chan struct{})}
		n.answers[host] = a
		n.asked++
	}
	id := "network-" + strconv.Itoa(n.asked)
	n.mu.Unlock()
	if !known {
		a.allowed = s.askHost(ctx, id, host, port)
		close(a.done)
	}
	select {
	case <-a.done:
		return a.allowed
	case <-ctx.Done():
		return false
	}
}

// askHost puts the question to the user; anything but an allow denies.
func (s *Session) askHost(ctx context.Context, id, host string, port int) bool {
	title := fmt.Sprintf("Network access: %s (port %d)", host, port)
	text := fmt.Sprintf("A command running in the sandbox wants to connect to %s on port %d. Your answer holds for %s for the rest of this session.", host, port, host)
	resp, err := s.requestPermission(ctx, &acp.RequestPermissionRequest{
		SessionID: s.id,
		ToolCall: acp.ToolCallUpdate{ToolCallID: id, Title: title, Kind: acp.ToolKindFetch, Status: acp.ToolStatusPending,
			Content: []acp.ToolCallContent{{Type: "content", Content: &acp.ContentBlock{Type: "text", Text: text}}}},
		Options: []acp.PermissionOption{
			{OptionID: acp.PermAllowAlways, Name: "Allow " + host + " in this session", Kind: acp.PermAllowAlways},
			{OptionID: acp.PermRejectAlways, Name: "Deny " + host + " in this session", Kind: acp.PermRejectAlways},
		},
	})
	allowed := err == nil && resp.Outcome.Outcome == "selected" && resp.Outcome.OptionID == acp.PermAllowAlways
	v := verdict{ToolCallID: id, Allowed: allowed, Source: "user", Message: "network access to " + host}
	if err != nil {
		v.Source = "error"
	} else {
		v.OptionID = resp.Outcome.OptionID
	}
	s.record(permissionEvent{v})
	status := acp.ToolStatusFailed
	if allowed {
		status = acp.ToolStatusCompleted
	}
	s.notify(context.WithoutCancel(ctx), acp.ToolCallUpdate{ToolCallID: id, Status: status})
	return allowed
}

// privateHostAllowed lets the proxy reach a non-public address only for a
// host that is itself one (localhost, a private IP literal) and that the
// settings or the user allowed by that very name: an allowed public name
// that resolves to a private address is refused (DNS rebinding).
func (s *Session) privateHostAllowed(host string) bool {
	if host != "localhost" {
		ip, err := netip.ParseAddr(host)
		if err != nil || !netproxy.PrivateAddr(ip) {
			return false
		}
	}
	for _, d := range s.settings.Sandbox.AllowedDomains {
		if netproxy.MatchDomain(d, host, 0) {
			return true
		}
	}
	n := &s.net
	n.mu.Lock()
	a := n.answers[host]
	n.mu.Unlock()
	if a == nil {
		return false
	}
	select {
	case <-a.done:
		return a.allowed
	default:
		return false
	}
}
