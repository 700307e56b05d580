package mcpjson

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// ManagedFile is the administrator's MCP file in the policy folder
// (/etc/claude-code on Linux): when it exists, its servers are the only
// ones that run (Claude Code's "exclusive control").
const ManagedFile = "managed-mcp.json"

// PolicyEntry is one entry of the managed allowedMcpServers or
// deniedMcpServers list: exactly one of a server's name, its exact
// command line (a stdio server's command and arguments), or its URL
// (with * wildcards; the host is compared without case).
type PolicyEntry struct {
	ServerName    string   `json:"serverName,omitempty"`
	ServerCommand []string `json:"serverCommand,omitempty"`
	ServerURL     string   `json:"serverUrl,omitempty"`
}

// Policy is the managed settings' MCP lists. A nil Allowed allows every
// server; an empty one none. Denied wins over Allowed.
type Policy struct {
	Allowed []PolicyEntry
	Denied  []PolicyEntry
	// broken: a list did not parse, and the policy, which is meant to
	// restrict, refuses every server until it is fixed.
	broken bool
}

// ParsePolicy reads the raw allowedMcpServers and deniedMcpServers
// values (absent: nil). A list that does not parse refuses every server,
// and is reported.
func ParsePolicy(allowed, denied json.RawMessage) (Policy, []string) {
	var p Policy
	var problems []string
	read := func(key string, raw json.RawMessage) []PolicyEntry {
		if len(raw) == 0 || string(raw) == "null" {
			return nil
		}
		list := []PolicyEntry{}
		err := json.Unmarshal(raw, &list)
		for i, e := range list {
			if err != nil {
				break
			}
			n := 0
			for _, set := range []bool{e.ServerName != "", len(e.ServerCommand) > 0, e.ServerURL != ""} {
				if set {
					n++
				}
			}
			if n != 1 {
				err = fmt.Errorf("entry %d must have exactly one of serverName, serverCommand and serverUrl", i)
			}
		}
		if err != nil {
			p.broken = true
			problems = append(problems, fmt.Sprintf("managed settings: %s: %v; no MCP server of the setup or the editor runs until it is fixed", key, err))
		}
		return list
	}
	p.Allowed = read("allowedMcpServers", allowed)
	p.Denied = read("deniedMcpServers", denied)
	return p, problems
}

// Active reports whether the policy restricts anything.
func (p Policy) Active() bool { return p.broken || p.Allowed != nil || len(p.Denied) > 0 }

// Refuses returns why the policy keeps a server from running ("" when it
// may run). command is a stdio server's command and arguments; url a
// remote server's.
func (p Policy) Refuses(name string, command []string, rawURL string) string {
	if p.broken {
		return "the administrator's MCP policy (allowedMcpServers/deniedMcpServers) does not parse"
	}
	for _, e := range p.Denied {
		if e.matches(name, command, rawURL) {
			return "the administrator's policy denies it (deniedMcpServers)"
		}
	}
	if p.Allowed == nil {
		return ""
	}
	byCommand := slices.ContainsFunc(p.Allowed, func(e PolicyEntry) bool { return len(e.ServerCommand) > 0 })
	byURL := slices.ContainsFunc(p.Allowed, func(e PolicyEntry) bool { return e.ServerURL != "" })
	for _, e := range p.Allowed {
		switch {
		// A stdio server must match a command entry when there is one,
		// a remote server a URL entry; otherwise its name decides.
		case len(command) > 0 && byCommand:
			if len(e.ServerCommand) > 0 && slices.Equal(e.ServerCommand, command) {
				return ""
			}
		case rawURL != "" && byURL:
			if e.ServerURL != "" && urlMatches(e.ServerURL, rawURL) {
				return ""
			}
		case e.ServerName != "" && e.ServerName == name:
			return ""
		}
	}
	return "the administrator's policy does not allow it (allowedMcpServers)"
}

func (e PolicyEntry) matches(name string, command []string, rawURL string) bool {
	switch {
	case e.ServerName != "":
		return e.ServerName == name
	case len(e.ServerCommand) > 0:
		return len(command) > 0 && slices.Equal(e.ServerCommand, command)
	case e.ServerURL != "":
		return rawURL != "" && urlMatches(e.ServerURL, rawURL)
	}
	return false
}

// urlMatches matches a URL against a pattern with * wildcards; the host
// is compared without case, the rest with.
func urlMatches(pattern, raw string) bool {
	fold := func(s string) string {
		const star = "wildcard-star"
		u, err := url.Parse(strings.ReplaceAll(s, "*", star))
		if err != nil || u.Host == "" {
			return s
		}
		u.Host = strings.ToLower(u.Host)
		return strings.ReplaceAll(u.String(), star, "*")
	}
	return globAll(fold(pattern), fold(raw))
}

// globAll matches s against a pattern whose only wildcard is *, which
// matches any run of characters ('/' included).
func globAll(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for _, mid := range parts[1 : len(parts)-1] {
		i := strings.Index(s, mid)
		if i < 0 {
			return false
		}
		s = s[i+len(mid):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}
