package acptest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cordis-agent/cordis/acp"
)

// ZedCapabilities are the client capabilities Zed sends in initialize
// (agent_servers' AcpConnection): fs read and write, terminals, terminal
// auth, and in _meta its terminal_output extension and the older
// "terminal-auth" flag.
func ZedCapabilities() acp.ClientCapabilities {
	caps := acp.ClientCapabilities{Terminal: true, Meta: acp.Meta{"terminal_output": true, "terminal-auth": true}}
	caps.FS.ReadTextFile, caps.FS.WriteTextFile = true, true
	caps.Auth = &struct {
		Terminal bool `json:"terminal,omitempty"`
	}{Terminal: true}
	return caps
}

// ServeLikeZed makes e answer as Zed does: fs/* from the disk, terminal/*
// with real processes, permission requests with allow (an option id, or
// nil to leave OnPermission as it is), and it holds the agent to what Zed
// can render: a session/update whose tool call content names a terminal
// that was released (or never created) is reported as a problem, since
// Zed drops such an update whole ("Terminal with id … not found").
// The returned Terminals is the editor's, for KillAll.
func ServeLikeZed(e *Editor, allow func(context.Context, *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error)) *Terminals {
	ts := &Terminals{}
	if allow != nil {
		e.OnPermission = allow
	}
	e.OnRequest = func(_ context.Context, method string, params json.RawMessage) (any, error) {
		switch {
		case strings.HasPrefix(method, "fs/"):
			return ServeFile(method, params)
		case strings.HasPrefix(method, "terminal/"):
			return ts.Serve(method, params)
		}
		return nil, MethodNotFound(method)
	}
	e.mu.Lock()
	e.onUpdate = func(n acp.SessionNotification) {
		for _, id := range terminalIDs(n.Update) {
			if !ts.Live(id) {
				e.report(fmt.Sprintf("acptest: session/update names terminal %s, which is released or unknown (Zed drops the update): %T", id, n.Update))
			}
		}
	}
	e.mu.Unlock()
	return ts
}

// terminalIDs are the terminals a tool call update's content embeds.
func terminalIDs(u acp.SessionUpdate) []string {
	var content []acp.ToolCallContent
	switch u := u.(type) {
	case *acp.ToolCall:
		content = u.Content
	case *acp.ToolCallUpdate:
		content = u.Content
	}
	var ids []string
	for _, c := range content {
		if c.Type == "terminal" {
			ids = append(ids, c.TerminalID)
		}
	}
	return ids
}

// Live reports whether id names a terminal that was created and not yet
// released.
func (ts *Terminals) Live(id string) bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	_, ok := ts.byID[id]
	return ok
}
