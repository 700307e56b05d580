package loop

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/loop/commands"
	"github.com/cordis-agent/cordis/loop/mcp"
	"github.com/cordis-agent/cordis/loop/tools"
)

// startMCP connects the session to the MCP servers the editor passed in
// session/new or session/load, and those of the user's setup
// (withSetupMCP). It returns once every server has answered
// or failed (each within the handshake timeout); failures are shown once,
// by reportMCPFailures, and by /doctor.
func (s *Session) startMCP(ctx context.Context, servers []acp.MCPServer) {
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
	specs = s.withSetupMCP(specs)
	if len(specs) == 0 {
		return
	}
	opts := s.agent.cfg.MCP
	opts.Roots = s.roots
	opts.EnvPolicy = s.agent.cfg.EnvPolicy
	opts.Version = s.agent.cfg.Version
	opts.Logger = s.agent.log.With("session", s.id)
	caps := s.agent.client.Capabilities()
	if caps.ElicitationForm() {
		opts.Elicit = s.elicit
	}
	if caps.ElicitationURL() {
		opts.ElicitURL = s.elicit
		opts.ElicitationComplete = s.elicitationComplete
	}
	opts.Unshown = s.elicitationUnshown
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

// elicit forwards an MCP server's elicitation to the editor, as ACP
// elicitation/create in the same mode (the editor advertised it), and
// returns its answer unchanged. The message is prefixed with the server's
// name, as MCP asks clients to show which server asks. The tool call is
// named when ctx is that of the only call in progress on the server (see
// mcp.ElicitFunc); ctx ends with the call, so with the turn.
func (s *Session) elicit(ctx context.Context, req mcp.ElicitRequest) (mcp.ElicitResult, error) {
	r := &acp.CreateElicitationRequest{
		SessionID:       s.id,
		Mode:            acp.ElicitModeForm,
		Message:         fmt.Sprintf("The MCP server %q asks: %s", req.Server, req.Message),
		RequestedSchema: req.RequestedSchema,
	}
	if req.Mode == acp.ElicitModeURL {
		r.Mode, r.RequestedSchema = acp.ElicitModeURL, nil
		r.URL, r.ElicitationID = req.URL, s.elicitationID(req.Server, req.ElicitationID)
		r.Message = fmt.Sprintf("The MCP server %q asks you to open a web page: %s", req.Server, req.Message)
	}
	r.ToolCallID, _ = ctx.Value(toolCallKey{}).(string)
	resp, err := s.requestElicitation(ctx, r)
	if err != nil {
		return mcp.ElicitResult{}, err
	}
	return mcp.ElicitResult{Action: resp.Action, Content: resp.Content}, nil
}

// elicitationID is the ACP id of a server's URL elicitation. An
// elicitation/complete names no session, so the id does: with the
// server's name and its own id (unique among its elicitations), it is
// unique on the connection.
func (s *Session) elicitationID(server, id string) string {
	return s.id + "/" + server + "/" + id
}

// elicitationComplete passes on an MCP server's completion of a URL
// elicitation the user accepted, as elicitation/complete.
func (s *Session) elicitationComplete(server, id string) {
	if err := s.agent.client.CompleteElicitation(context.Background(), s.elicitationID(server, id)); err != nil {
		s.agent.log.Warn("elicitation/complete failed", "session", s.id, "error", err)
	}
}

// elicitationUnshown tells the user, in the thread, what an MCP server
// asked that the editor cannot show (the server was refused): a notice
// where the editor takes them, else a line of text. The URL of a URL
// elicitation is not shown whole, only its host: the editor could not
// ask before the user follows it, and the server was told no.
func (s *Session) elicitationUnshown(req mcp.ElicitRequest) {
	what := "asked for a form to be filled in"
	if req.Mode == acp.ElicitModeURL {
		what = "asked you to open a web page"
		if u, err := url.Parse(req.URL); err == nil && u.Host != "" {
			what += " on " + u.Host
		}
	}
	msg := fmt.Sprintf("The MCP server %q %s (%q), which this editor cannot show; the server was told so.", req.Server, what, cutAtWord(req.Message, 200))
	ctx := context.Background()
	if s.agent.client.Capabilities().Notices() {
		s.notify(ctx, acp.NoticeUpdate{Severity: "warning", Title: "MCP request not shown", Description: msg})
		return
	}
	s.notify(ctx, acp.AgentMessageChunk{Content: acp.TextBlock("[cordis: " + msg + "]\n")})
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

// withSetupMCP adds to the editor's servers those the user's setup
// configures for the session's cwd (Config.SetupMCP). The editor's win a
// name clash; what the setup says (servers waiting for approval, a
// clash) is told the editor once the session is open.
func (s *Session) withSetupMCP(editor []mcp.Spec) []mcp.Spec {
	var refused []string
	if policy := s.agent.cfg.MCPPolicy; policy != nil {
		editor = slices.DeleteFunc(slices.Clone(editor), func(sp mcp.Spec) bool {
			why := policy(sp)
			if why != "" {
				refused = append(refused, fmt.Sprintf("The editor's MCP server %q is not started: %s.", sp.Name, why))
			}
			return why != ""
		})
	}
	if s.agent.cfg.SetupMCP == nil {
		s.noteStartup(refused)
		return editor
	}
	extra, notices := s.agent.cfg.SetupMCP(s.cwd)
	notices = append(refused, notices...)
	specs := editor
	for _, sp := range extra {
		if slices.ContainsFunc(editor, func(e mcp.Spec) bool { return e.Name == sp.Name }) {
			notices = append(notices, fmt.Sprintf("The editor's MCP server %q is used instead of the one of the same name in %s.", sp.Name, sp.Origin))
			continue
		}
		if sp.Dir == "" {
			sp.Dir = s.cwd
		}
		specs = append(specs, sp)
	}
	s.noteStartup(notices)
	return specs
}

// noteStartup keeps notices to tell the editor once the session is open.
func (s *Session) noteStartup(notices []string) {
	if len(notices) > 0 {
		s.mu.Lock()
		s.startupNotices = append(s.startupNotices, notices...)
		s.mu.Unlock()
	}
}
