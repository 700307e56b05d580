package loop

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

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
	if err := a.sessionError(ctx); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return nil, acp.InvalidParams("field \"cwd\": %q is not a directory", cwd)
	}
	a.closeOpen(id)
	w, events, warnings, err := sessionlog.Load(sessionlog.Path(a.cfg.StateDir, id), sessionlog.WithClock(a.cfg.Now))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, acp.SessionNotFound(id)
	case errors.Is(err, sessionlog.ErrLocked):
		return nil, acp.InvalidRequest("session %s is open in another cordis process (another editor window?); close it there, then load it again", id)
	case errors.Is(err, sessionlog.ErrNoEvents):
		// Not a damaged log that loads up to the damage: nothing in it is
		// a session, and an empty session in its place would hide that.
		return nil, acp.InternalError("session %s cannot be loaded: %v; the file was left as it is", id, err)
	case err != nil:
		return nil, acp.InternalError("session %s cannot be loaded: %v", id, err)
	}
	for _, w := range warnings {
		a.log.Warn("session log", "warning", w)
	}
	s := a.newSession(id, cwd, extra, w)
	a.register(s)
	// The replayed history goes to the editor in batches, all of it before
	// the response.
	batched, flush := a.client.BatchUpdates(ctx)
	s.restore(batched, events, replay)
	s.reportRecovery(batched)
	if err := flush(); err != nil {
		a.log.Warn("session/update failed", "session", s.id, "error", err)
	}
	s.startMCP(ctx, mcpServers)
	s.record(sessionLoadEvent{Cwd: cwd, Events: len(events), Warnings: warnings, Resumed: !replay})
	s.queueSessionStart(ctx, "resume")
	return s, nil
}

// reportRecovery tells the user what of a damaged log was left out (two
// processes appending to one log, say), and where it was saved.
func (s *Session) reportRecovery(ctx context.Context) {
	d := s.log.Dropped()
	if d.Bytes == 0 {
		return
	}
	s.say(ctx, fmt.Sprintf("\n\n[cordis: this session's log was damaged at line %d (%s). The conversation is restored up to that point (%d events); "+
		"the %d bytes after it were left out and saved in %s.]", d.Line, d.Reason, d.Kept, d.Bytes, d.SavedIn))
}

// restore rebuilds the conversation from the log and, with replay,
// replays it to the editor as session/update notifications, in log order.
// Each event is read with the type that wrote it (events.go); one that
// does not decode is skipped, as before typed events.
func (s *Session) restore(ctx context.Context, events []sessionlog.Event, replay bool) {
	rs := restorer{s: s, quiet: map[string]bool{}, verbatim: map[string]bool{}, outputs: map[string]string{}, show: func(u acp.SessionUpdate) {
		if replay {
			s.notify(ctx, u)
		}
	}}
	for _, ev := range events {
		rs.apply(ev)
	}
	if restoreStats := s.agent.cfg.RestoreToolStats; restoreStats != nil {
		restoreStats(s.id, rs.tally.stats())
	}
	// Text a crash cut off mid-stream is the end of the conversation.
	if text := rs.takeStreamed(); text != "" {
		rs.history = append(rs.history, llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text(text)}})
	}
	s.mu.Lock()
	s.history = repairHistory(rs.history)
	s.mu.Unlock()
	s.failInterrupted(ctx, rs.unanswered)
}

// failInterrupted records a failed result for each tool call the log shows
// started but never finished (the agent died while it ran), so that this
// and every later load shows the call failed, with the reason.
func (s *Session) failInterrupted(ctx context.Context, calls []string) {
	for _, id := range calls {
		content := []acp.ToolCallContent{acp.ContentText(interruptedCall)}
		s.record(toolResultLogEvent{toolResultEvent{ToolCallID: id, Status: acp.ToolStatusFailed, Output: interruptedCall, IsError: true, Content: content}})
		s.notify(ctx, acp.ToolCallUpdate{ToolCallID: id, Status: acp.ToolStatusFailed, Content: content})
	}
}

// interruptedCall is the result of a tool call the agent died during.
const interruptedCall = "This tool call was interrupted (the agent stopped before it finished)."

// restorer is the state restore builds up.
type restorer struct {
	s       *Session
	show    func(acp.SessionUpdate)
	history []llm.Message
	// streamed is text logged while it streamed and not yet followed by
	// its message; unanswered are the tool calls without a result, in
	// order.
	streamed   strings.Builder
	unanswered []string
	// quiet are the calls that had no card (TodoWrite); verbatim those
	// whose result text is shown fenced (cardtext.go).
	quiet    map[string]bool
	verbatim map[string]bool
	// outputs are the logged tool outputs a later message may name
	// (logonce.go), by call id, until it does.
	outputs map[string]string
	// tally counts the tool calls from the events as apply decodes them.
	tally toolTally
}

// apply restores one event: the history, what the editor is shown, and the
// session's mode, model, turn count and usage.
func (rs *restorer) apply(ev sessionlog.Event) {
	s := rs.s
	rs.boundary(ev.Type)
	rs.restoreTitle(ev)
	switch ev.Type {
	case sessionlog.TypeStreamText:
		if t, ok := decodeEvent[streamTextEvent](ev); ok {
			rs.streamed.WriteString(t.Text)
		}
	case sessionlog.TypeMessage:
		if m, ok := decodeEvent[messageEvent](ev); ok {
			rs.message(resolveOutputs(m, rs.outputs))
		}
		// The message after a step's results is the one that names them.
		clear(rs.outputs)
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
	case sessionlog.TypePermission:
		rs.tally.permission(ev)
	case sessionlog.TypeToolCall:
		if t, ok := decodeEvent[toolCallEvent](ev); ok {
			rs.tally.call(t.ToolCallID, t.Name)
			rs.unanswered = append(rs.unanswered, t.ToolCallID)
			if verbatimKind(t.Kind) {
				rs.verbatim[t.ToolCallID] = true
			}
			if t.Quiet {
				rs.quiet[t.ToolCallID] = true
				break
			}
			rs.show(acp.ToolCall{ToolCallID: t.ToolCallID, Title: t.Title, Kind: t.Kind, Status: acp.ToolStatusPending, Locations: t.Locations, RawInput: rawOrEmpty(t.Input)})
		}
	case sessionlog.TypeToolResult:
		t, encodedOutput, ok := decodeToolResult(ev.Data)
		rs.tally.result(ev, t.toolResultEvent, ok)
		if ok {
			rs.unanswered = slices.DeleteFunc(rs.unanswered, func(id string) bool { return id == t.ToolCallID })
			rs.outputs[t.ToolCallID] = t.Output
			if !rs.quiet[t.ToolCallID] {
				rs.show(replayedResult(t.toolResultEvent, encodedOutput, rs.verbatim[t.ToolCallID] && t.Status == acp.ToolStatusCompleted))
			}
		}
	case sessionlog.TypePlan:
		if entries, ok := decodeEvent[planEvent](ev); ok {
			rs.show(acp.PlanUpdate{Entries: entries})
		}
	case sessionlog.TypeModeChange:
		if m, ok := decodeEvent[modeChangeEvent](ev); ok && m.Mode != "" {
			s.mode = s.allowedMode(m.Mode)
		}
	case sessionlog.TypeConfigChange:
		if c, ok := decodeEvent[configChangeEvent](ev); ok && c.ConfigID == configModel {
			s.model = c.Value
		}
	case sessionlog.TypeTurnStart:
		s.turnSeq++
	case sessionlog.TypeModelResponse:
		// The session's usage (and so its budget) survives a restart; a
		// step cut short counts what it reported (the tokens were spent).
		if r, ok := decodeEvent[modelResponseEvent](ev); ok && (!r.Partial || r.Usage != (llm.Usage{})) {
			s.usage.add(r.Usage, cmp.Or(r.Model, s.model))
			_, used := s.usage.read()
			s.usage.setContext(restoredContext(ev, r.Usage, used))
		}
	case sessionlog.TypeClear:
		rs.history = nil
		s.usage.setContext(0)
	case sessionlog.TypeTruncate:
		if t, ok := decodeEvent[truncateEvent](ev); ok && t.Keep >= 0 && t.Keep < len(rs.history) {
			rs.history = rs.history[:t.Keep]
		}
	case sessionlog.TypeCompaction:
		if c, ok := decodeEvent[compactionEvent](ev); ok {
			// A compaction in the middle of a turn kept the history's
			// last messages as they were.
			kept := rs.history[len(rs.history)-min(max(c.Kept, 0), len(rs.history)):]
			rs.history = append([]llm.Message{compactedMessage(c.Summary)}, kept...)
			if c.ID != "" {
				s.noteCompactionID(c.ID)
				rs.show(s.compactionShown(c))
			}
		}
	case sessionlog.TypeNotice:
		if n, ok := decodeEvent[compactionFailedNotice](ev); ok && n.Kind == "compactionFailed" {
			s.noteCompactionID(n.ID)
			rs.show(s.compactionFailureShown(n))
		}
	}
}

// replayedResult is the tool_call_update that shows a logged result
// again; encodedOutput is its output's JSON text when the log holds it
// as json.Marshal writes it (decodeToolResult); verbatim fences its text
// as the live card did (cardtext.go).
func replayedResult(t toolResultEvent, encodedOutput string, verbatim bool) acp.ToolCallUpdate {
	u := acp.ToolCallUpdate{ToolCallID: t.ToolCallID, Status: t.Status}
	switch {
	case t.Content == nil && encodedOutput != "" && verbatim && !isFenced(t.Output):
		text, encoded := fencedEncoded(t.Output, encodedOutput)
		u.Content = []acp.ToolCallContent{{Type: "content", Content: new(acp.EncodedTextBlock(text, encoded))}}
	case t.Content == nil && encodedOutput != "" && !verbatim:
		// The output logged once, as the card's text: its JSON text
		// goes into the frame as it is.
		u.Content = []acp.ToolCallContent{{Type: "content", Content: new(acp.EncodedTextBlock(t.Output, encodedOutput))}}
	default:
		u.Content = replayContent(t)
		if verbatim {
			u.Content = verbatimContent(u.Content)
		}
	}
	return u
}

// restoredContext is the context a logged response left, as bill
// counted it when it was live: a compaction's summary is the whole
// context after it, and the side call of a web search or of WebFetch's
// prompt leaves the context as it was (used).
func restoredContext(ev sessionlog.Event, u llm.Usage, used int) int {
	if c, ok := decodeEvent[sideCallResponseEvent](ev); ok && c.Purpose != "" {
		if sideCallKeepsContext(c.Purpose) {
			return used
		}
		return u.OutputTokens
	}
	return u.ContextTokens()
}

// boundary shows streamed text that no message followed once the step it
// belonged to is over (a failed request, a crash before a later turn).
func (rs *restorer) boundary(typ string) {
	switch typ {
	case sessionlog.TypeTurnStart, sessionlog.TypeTurnEnd, sessionlog.TypeUserPrompt, sessionlog.TypeModelRequest, sessionlog.TypeModelError:
		rs.takeStreamed()
	}
}

// takeStreamed shows the pending streamed text and returns it.
func (rs *restorer) takeStreamed() string {
	text := rs.streamed.String()
	rs.streamed.Reset()
	if text != "" {
		rs.show(acp.AgentMessageChunk{Content: acp.TextBlock(text)})
	}
	return text
}

// message adds a history message and shows an assistant's text and
// thinking; an assistant message holds the text that streamed before it.
func (rs *restorer) message(m llm.Message) {
	rs.history = append(rs.history, m)
	if m.Role != llm.RoleAssistant {
		return
	}
	rs.streamed.Reset()
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
// is accepted, and a thinking block a cancel or an error cut off (logged
// unsigned by older versions) is dropped, with its message if nothing
// else is left of it.
func repairHistory(in []llm.Message) []llm.Message {
	in = withoutCutThinkingMessages(in)
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
				missing = append(missing, toolResult(b.ID, interruptedCall, true))
			}
		}
		if len(missing) > 0 {
			out = append(out, llm.Message{Role: llm.RoleUser, Content: missing})
		}
	}
	return out
}

// withoutCutThinkingMessages applies withoutCutThinking to every assistant
// message, leaving out the messages it empties.
func withoutCutThinkingMessages(in []llm.Message) []llm.Message {
	out := make([]llm.Message, 0, len(in))
	for _, m := range in {
		if m.Role == llm.RoleAssistant {
			m = llm.Message{Role: m.Role, Content: withoutCutThinking(m.Content)}
			if len(m.Content) == 0 {
				continue
			}
		}
		out = append(out, m)
	}
	return out
}

// reportRestoredUsage sends usage_update for a session reopened with
// model calls behind it, so the editor's context meter is right before
// the next turn.
func (s *Session) reportRestoredUsage(ctx context.Context) {
	totals, used := s.usage.read()
	if totals.Requests == 0 {
		return
	}
	s.notify(ctx, s.usageUpdate(totals, used))
}
