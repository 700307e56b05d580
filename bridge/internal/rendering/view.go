package rendering

import (
	"cmp"
	"encoding/json"

	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/sessionlog"
)

// The data of the log events a rendering reads. The loop writes them
// (loop/events.go); these are the fields renderings need, read the way
// session/load reads them.
type (
	sessionStartData struct {
		SessionID string `json:"sessionId"`
		Cwd       string `json:"cwd"`
		Model     string `json:"model"`
		Mode      string `json:"mode"`
	}
	sessionLoadData struct {
		Cwd string `json:"cwd"`
	}
	turnStartData struct {
		TurnID string `json:"turnId"`
	}
	modeChangeData struct {
		Mode string `json:"mode"`
	}
	configChangeData struct {
		ConfigID string `json:"configId"`
		Value    string `json:"value"`
	}
	modelRequestData struct {
		Model string `json:"model"`
	}
	modelResponseData struct {
		Usage   llm.Usage `json:"usage"`
		Partial bool      `json:"partial"`
	}
	subagentStartData struct {
		AgentID   string `json:"agentId"`
		AgentType string `json:"agentType"`
	}
	toolResultData struct {
		ToolCallID string `json:"toolCallId"`
		Output     string `json:"output"`
	}
	// messageData is a message; ToolOutputs names the tool_results whose
	// text begins with their tool/result event's output, which the log
	// stores once, there (log version 2, loop/logonce.go).
	messageData struct {
		llm.Message
		ToolOutputs []string `json:"toolOutputs"`
	}
)

// configModel is the config option id of the session's model.
const configModel = "model"

// apply takes in one event of f's log: the session's state (from the
// session's own log), the subagents that start, and f's entries.
func (ss *session) apply(f *follow, ev sessionlog.Event) {
	st := &ss.state
	main := f.depth == 0
	// A response's usage follows its message (the loop logs the response,
	// then the message); anything else comes after the usage.
	if f.usage != nil && ev.Type != sessionlog.TypeMessage {
		ss.flushUsage(f)
	}
	switch ev.Type {
	case sessionlog.TypeSessionStart:
		if d, ok := decode[sessionStartData](ev); ok && main {
			*st = sessionState{id: d.SessionID, startCwd: d.Cwd, cwd: d.Cwd, startModel: d.Model, model: d.Model, mode: d.Mode}
		}
	case sessionlog.TypeSessionLoad:
		if d, ok := decode[sessionLoadData](ev); ok && main && d.Cwd != "" {
			st.cwd = d.Cwd
		}
	case sessionlog.TypeModeChange:
		if d, ok := decode[modeChangeData](ev); ok && main && d.Mode != "" {
			st.mode = d.Mode
		}
	case sessionlog.TypeConfigChange:
		if d, ok := decode[configChangeData](ev); ok && main && d.ConfigID == configModel {
			st.model = d.Value
		}
	case sessionlog.TypeTurnStart:
		ss.release(f, st.model)
		if d, ok := decode[turnStartData](ev); ok && main {
			f.open = &Turn{ID: d.TurnID}
		}
	case sessionlog.TypeTurnEnd, sessionlog.TypeTurnRejected:
		ss.release(f, st.model)
		f.open = nil
	case sessionlog.TypeToolResult:
		if d, ok := decode[toolResultData](ev); ok && d.Output != "" {
			if f.outputs == nil {
				f.outputs = map[string]string{}
			}
			f.outputs[d.ToolCallID] = d.Output
		}
	case sessionlog.TypeMessage:
		var md messageData
		if json.Unmarshal(ev.Data, &md) != nil {
			return
		}
		m := withOutputs(md, f.outputs)
		clear(f.outputs)
		if f.open != nil {
			t := *f.open
			t.Cwd, t.Mode = st.cwd, st.mode
			f.open = nil
			f.held = append(f.held, Entry{Time: ev.Time, Seq: ev.Seq, Cwd: st.cwd, Turn: &t})
		}
		if m.Role != llm.RoleAssistant {
			ss.flushUsage(f)
		}
		ss.emit(f, Entry{Time: ev.Time, Seq: ev.Seq, Cwd: st.cwd, Message: &m})
		ss.flushUsage(f)
	case sessionlog.TypeModelRequest:
		if d, ok := decode[modelRequestData](ev); ok {
			ss.release(f, cmp.Or(d.Model, st.model))
		}
	case sessionlog.TypeModelResponse:
		if d, ok := decode[modelResponseData](ev); ok && !d.Partial {
			u := d.Usage
			f.usage = &Entry{Time: ev.Time, Seq: ev.Seq, Cwd: st.cwd, Usage: &u}
		}
	case sessionlog.TypeSubagentStart:
		if d, ok := decode[subagentStartData](ev); ok && d.AgentID != "" {
			ss.known[d.AgentID] = agentInfo{depth: f.depth + 1, typ: d.AgentType}
		}
	}
}

// emit renders e, or holds it while a turn waits for its model.
func (ss *session) emit(f *follow, e Entry) {
	if len(f.held) > 0 {
		f.held = append(f.held, e)
		return
	}
	ss.render(f, e)
}

// flushUsage emits the usage of the last response, if it waits.
func (ss *session) flushUsage(f *follow) {
	if u := f.usage; u != nil {
		f.usage = nil
		ss.emit(f, *u)
	}
}

// release renders the held entries, their turn with model.
func (ss *session) release(f *follow, model string) {
	if len(f.held) == 0 {
		return
	}
	held := f.held
	f.held = nil
	held[0].Turn.Model = model
	for _, e := range held {
		ss.render(f, e)
	}
}

func (ss *session) render(f *follow, e Entry) {
	if f.r == nil {
		ss.start(f)
	}
	f.out.Write(f.r.Render(e))
}

// decode reads an event's data as T.
func decode[T any](ev sessionlog.Event) (T, bool) {
	var v T
	return v, json.Unmarshal(ev.Data, &v) == nil
}

// withOutputs is the message with the outputs it names put back.
func withOutputs(md messageData, outputs map[string]string) llm.Message {
	m := md.Message
	for _, id := range md.ToolOutputs {
		for i, b := range m.Content {
			if b.Type == llm.BlockToolResult && b.ToolUseID == id && len(b.Content) > 0 {
				b.Content[0].Text = outputs[id] + b.Content[0].Text
				m.Content[i] = b
			}
		}
	}
	return m
}
