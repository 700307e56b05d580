package loop

import (
	"context"
	"errors"
	"io/fs"
	"os"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/sessionlog"
)

// say shows text cordis itself produced and logs it for replay.
func (s *Session) say(ctx context.Context, text string) {
	s.record(agentTextEvent{Text: text})
	s.notify(ctx, acp.AgentMessageChunk{Content: acp.TextBlock(text)})
}

// LoadSession reopens a logged session and replays it to the editor before
// it answers (ACP session/load).
func (a *Agent) LoadSession(ctx context.Context, req *acp.LoadSessionRequest) (*acp.LoadSessionResponse, error) {
	s, err := a.reopen(ctx, req.SessionID, req.Cwd, req.AdditionalDirectories, req.MCPServers, true)
	if err != nil {
		return nil, err
	}
	return &acp.LoadSessionResponse{Modes: s.modeState(), ConfigOptions: s.configOptions()}, nil
}

// ResumeSession reopens a logged session without replaying it (ACP
// session/resume): the editor still shows the conversation, cordis
// restores its own state (history, mode, model, usage) from the log.
func (a *Agent) ResumeSession(ctx context.Context, req *acp.ResumeSessionRequest) (*acp.ResumeSessionResponse, error) {
	s, err := a.reopen(ctx, req.SessionID, req.Cwd, req.AdditionalDirectories, req.MCPServers, false)
	if err != nil {
		return nil, err
	}
	return &acp.ResumeSessionResponse{Modes: s.modeState(), ConfigOptions: s.configOptions()}, nil
}

// reopen opens the session log of id for appending, restores the session
// from it (replaying it to the editor when replay is set), starts its MCP
// servers and queues SessionStart hooks with source "resume".
func (a *Agent) reopen(ctx context.Context, id, cwd string, extra []string, mcpServers []acp.MCPServer, replay bool) (*Session, error) {
	if !sessionlog.ValidID(id) {
		return nil, acp.SessionNotFound(id)
	}
	if err := a.authError(); err != nil {
		return nil, err
	}
	path := sessionlog.Path(a.cfg.StateDir, id)
	events, warnings, err := sessionlog.Read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, acp.SessionNotFound(id)
	}
	if err != nil {
		return nil, acp.InternalError("session %s cannot be loaded: %v", id, err)
	}
	for _, w := range warnings {
		a.log.Warn("session log", "warning", w)
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return nil, acp.InvalidParams("field \"cwd\": %q is not a directory", cwd)
	}
	s, err := a.openSession(id, cwd, extra, true)
	if err != nil {
		return nil, acp.InternalError("reopening session log: %v", err)
	}
	// The replayed history goes to the editor in batches, all of it before
	// the response.
	batched, flush := a.client.BatchUpdates(ctx)
	s.restore(batched, events, replay)
	if err := flush(); err != nil {
		a.log.Warn("session/update failed", "session", s.id, "error", err)
	}
	s.startMCP(ctx, mcpServers)
	s.record(sessionLoadEvent{Cwd: cwd, Events: len(events), Warnings: warnings, Resumed: !replay})
	s.queueSessionStart(ctx, "resume")
	return s, nil
}

// restore rebuilds the conversation from the log and, with replay,
// replays it to the editor as session/update notifications, in log order.
// Each event is read with the type that wrote it (events.go); one that
// does not decode is skipped, as before typed events.
func (s *Session) restore(ctx context.Context, events []sessionlog.Event, replay bool) {
	rs := restorer{s: s, show: func(u acp.SessionUpdate) {
		if replay {
			s.notify(ctx, u)
		}
	}}
	for _, ev := range events {
		rs.apply(ev)
	}
	s.mu.Lock()
	s.history = repairHistory(rs.history)
	s.mu.Unlock()
}

// restorer is the state restore builds up.
type restorer struct {
	s       *Session
	show    func(acp.SessionUpdate)
	history []llm.Message
}

// apply restores one event: the history, what the editor is shown, and the
// session's mode, model, turn count and usage.
func (rs *restorer) apply(ev sessionlog.Event) {
	s := rs.s
	switch ev.Type {
	case sessionlog.TypeMessage:
		if m, ok := decodeEvent[messageEvent](ev); ok {
			rs.message(m.Message)
		}
	case sessionlog.TypeUserPrompt:
		if p, ok := decodeEvent[userPromptEvent](ev); ok {
			for _, b := range p.Content {
				rs.show(acp.UserMessageChunk{Content: b})
			}
		}
	case sessionlog.TypeAgentText:
		if t, ok := decodeEvent[agentTextEvent](ev); ok {
			rs.show(acp.AgentMessageChunk{Content: acp.TextBlock(t.Text)})
		}
	case sessionlog.TypeToolCall:
		if t, ok := decodeEvent[toolCallEvent](ev); ok {
			rs.show(acp.ToolCall{ToolCallID: t.ToolCallID, Title: t.Title, Kind: t.Kind, Status: acp.ToolStatusPending, Locations: t.Locations, RawInput: rawOrEmpty(t.Input)})
		}
	case sessionlog.TypeToolResult:
		if t, ok := decodeEvent[toolResultLogEvent](ev); ok {
			rs.show(acp.ToolCallUpdate{ToolCallID: t.ToolCallID, Status: t.Status, Content: t.Content})
		}
	case sessionlog.TypePlan:
		if entries, ok := decodeEvent[planEvent](ev); ok {
			rs.show(acp.PlanUpdate{Entries: entries})
		}
	case sessionlog.TypeModeChange:
		if m, ok := decodeEvent[modeChangeEvent](ev); ok && m.Mode != "" {
			s.mode = m.Mode
		}
	case sessionlog.TypeConfigChange:
		if c, ok := decodeEvent[configChangeEvent](ev); ok && c.ConfigID == configModel {
			s.model = c.Value
		}
	case sessionlog.TypeTurnStart:
		s.turnSeq++
	case sessionlog.TypeModelResponse:
		// The session's usage (and so its budget) survives a restart.
		if r, ok := decodeEvent[modelResponseEvent](ev); ok && !r.Partial {
			s.usage.add(r.Usage, firstNonEmpty(r.Model, s.model))
		}
	case sessionlog.TypeClear:
		rs.history = nil
	case sessionlog.TypeTruncate:
		if t, ok := decodeEvent[truncateEvent](ev); ok && t.Keep >= 0 && t.Keep < len(rs.history) {
			rs.history = rs.history[:t.Keep]
		}
	case sessionlog.TypeCompaction:
		if c, ok := decodeEvent[compactionEvent](ev); ok {
			rs.history = []llm.Message{compactedMessage(c.Summary)}
		}
	}
}

// message adds a history message and shows an assistant's text and
// thinking.
func (rs *restorer) message(m llm.Message) {
	rs.history = append(rs.history, m)
	if m.Role != llm.RoleAssistant {
		return
	}
	for _, b := range m.Content {
		switch b.Type {
		case llm.BlockText:
			rs.show(acp.AgentMessageChunk{Content: acp.TextBlock(b.Text)})
		case llm.BlockThinking:
			rs.show(acp.AgentThoughtChunk{Content: acp.TextBlock(b.Thinking)})
		}
	}
}

// repairHistory makes a history cut short by a crash valid again: every
// tool_use gets a tool_result (an interruption notice) so the next request
// is accepted.
func repairHistory(in []llm.Message) []llm.Message {
	var out []llm.Message
	for i, m := range in {
		out = append(out, m)
		if m.Role != llm.RoleAssistant {
			continue
		}
		answered := map[string]bool{}
		if i+1 < len(in) && in[i+1].Role == llm.RoleUser {
			for _, b := range in[i+1].Content {
				if b.Type == llm.BlockToolResult {
					answered[b.ToolUseID] = true
				}
			}
		}
		var missing []llm.Block
		for _, b := range m.Content {
			if b.Type == llm.BlockToolUse && !answered[b.ID] {
				missing = append(missing, toolResult(b.ID, "This tool call was interrupted (the agent stopped before it finished).", true))
			}
		}
		if len(missing) > 0 {
			out = append(out, llm.Message{Role: llm.RoleUser, Content: missing})
		}
	}
	return out
}
