package loop

import (
	"context"
	"fmt"
	"strings"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/loop/commands"
	"github.com/cordis-agent/cordis/loop/mcp"
	"github.com/cordis-agent/cordis/loop/tools"
)

// startMCP connects the session to the MCP servers the editor passed in
// session/new or session/load. It returns once every server has answered
// or failed (each within the handshake timeout); failures are shown once,
// by reportMCPFailures, and by /doctor.
func (s *Session) startMCP(ctx context.Context, servers []acp.MCPServer) {
	if len(servers) == 0 {
		return
	}
	specs := make([]mcp.Spec, len(servers))
	for i, sv := range servers {
		sp := mcp.Spec{Name: sv.Name, Type: sv.Type, Command: sv.Command, Args: sv.Args, Dir: s.cwd, URL: sv.URL}
		for _, e := range sv.Env {
			sp.Env = append(sp.Env, e.Name+"="+e.Value)
		}
		for _, h := range sv.Headers {
			sp.Headers = append(sp.Headers, mcp.Header{Name: h.Name, Value: h.Value})
		}
		specs[i] = sp
	}
	opts := s.agent.cfg.MCP
	opts.Roots = s.roots
	opts.EnvPolicy = s.agent.cfg.EnvPolicy
	opts.Version = s.agent.cfg.Version
	opts.Logger = s.agent.log.With("session", s.id)
	if s.agent.client.Capabilities().ElicitationForm() {
		opts.Elicit = s.elicit
	}
	m := mcp.Start(ctx, specs, opts)
	s.mu.Lock()
	closed := s.closed
	if !closed {
		s.mcp = m
	}
	s.mu.Unlock()
	if closed {
		m.Close()
		return
	}
	var list []serverStatus
	for _, st := range m.Status() {
		list = append(list, serverStatus{Name: st.Name, Transport: st.Transport, OK: st.OK, Tools: st.Tools, Prompts: st.Prompts, Error: st.Err})
	}
	s.record(mcpServersNotice{Kind: "mcpServers", Servers: list})
}

// toolCallKey is the context key of the id of the tool call a tool runs
// for (see withToolCall).
type toolCallKey struct{}

// withToolCall marks ctx as the context of the tool call id, so that an
// MCP server's elicitation during the call can name it.
func withToolCall(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, toolCallKey{}, id)
}

// elicit forwards an MCP server's form elicitation to the editor, as ACP
// elicitation/create (the editor advertised elicitation.form), and returns
// its answer unchanged. The message is prefixed with the server's name, as
// MCP asks clients to show which server asks. The tool call is named when
// ctx is that of the only call in progress on the server (see
// mcp.ElicitFunc); ctx ends with the call, so with the turn.
func (s *Session) elicit(ctx context.Context, req mcp.ElicitRequest) (mcp.ElicitResult, error) {
	r := &acp.CreateElicitationRequest{
		SessionID:       s.id,
		Mode:            "form",
		Message:         fmt.Sprintf("The MCP server %q asks: %s", req.Server, req.Message),
		RequestedSchema: req.RequestedSchema,
	}
	r.ToolCallID, _ = ctx.Value(toolCallKey{}).(string)
	resp, err := s.agent.client.CreateElicitation(ctx, r)
	if err != nil {
		return mcp.ElicitResult{}, err
	}
	return mcp.ElicitResult{Action: resp.Action, Content: resp.Content}, nil
}

func (s *Session) mcpManager() *mcp.Manager {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mcp
}

// mcpTools are the session's MCP tools as of now: a list_changed received
// since the last request is honoured here, before the next one.
func (s *Session) mcpTools() []tools.Tool {
	return s.mcpManager().Tools(context.Background())
}

// reportMCPFailures tells the editor, once, which MCP servers failed to
// start: as notices when the client takes them (when the session opens),
// otherwise as agent text at the start of the first turn.
func (s *Session) reportMCPFailures(ctx context.Context, atTurn bool) {
	m := s.mcpManager()
	if m == nil {
		return
	}
	notices := s.agent.client.Capabilities().Notices()
	if notices == atTurn {
		return
	}
	fails := m.Failures()
	if len(fails) == 0 {
		return
	}
	if notices {
		for _, f := range fails {
			s.record(mcpUnavailableNotice{Kind: "mcpUnavailable", Message: f})
			s.notify(ctx, acp.NoticeUpdate{Severity: "warning", Title: "MCP server unavailable", Description: f})
		}
		return
	}
	var b strings.Builder
	for _, f := range fails {
		b.WriteString("[cordis: " + f + "]\n")
	}
	s.say(ctx, b.String()+"\n")
}

// commandSet is the session's slash commands: the registry's for its cwd
// and the prompts of its MCP servers.
func (s *Session) commandSet() (*commands.Set, uint64) {
	set := s.agent.commands.Load(s.cwd)
	gen, extra := s.mcpManager().Commands(context.Background())
	return set.With(extra), gen
}

// mcpDoctor is the /doctor lines of the session's MCP servers.
func (s *Session) mcpDoctor() []string {
	var lines []string
	for _, st := range s.mcpManager().Status() {
		lines = append(lines, st.Line())
	}
	return lines
}
