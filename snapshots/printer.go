package snapshots

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Printer is an Observer that prints the conversation for people: the
// prompts, the streamed text, tool calls with their permission decisions
// and outcomes, plans, and the hook events from the session log. It is
// what `go run ./snapshots/cmd/replay` shows.
type Printer struct {
	w        io.Writer
	inText   bool              // an assistant text line is open
	ours     map[string]string // editor request id -> method
	theirs   map[string]string // agent request id -> method
	titles   map[string]string // tool call id -> title
	sessions map[string]int    // session id -> number
	queue    []loggedEvent     // log events not printed yet, by time
}

// loggedEvent is a session log event waiting for its place in the output.
type loggedEvent struct {
	time    string
	typ     string
	anchor  string // "tool/call:<id>", "tool/result:<id>", "turn/end" or ""
	agentID string
	data    map[string]any
}

// NewPrinter prints to w.
func NewPrinter(w io.Writer) *Printer {
	return &Printer{w: w, ours: map[string]string{}, theirs: map[string]string{}, titles: map[string]string{}, sessions: map[string]int{}}
}

func (p *Printer) line(format string, args ...any) {
	if p.inText {
		fmt.Fprintln(p.w)
		p.inText = false
	}
	fmt.Fprintf(p.w, format+"\n", args...)
}

type printedFrame struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// Sent implements Observer.
func (p *Printer) Sent(process int, msg []byte) {
	var f printedFrame
	if json.Unmarshal(msg, &f) != nil {
		return
	}
	var params map[string]any
	json.Unmarshal(f.Params, &params)
	switch {
	case f.Method != "" && len(f.ID) > 0:
		p.ours[string(f.ID)] = f.Method
		switch f.Method {
		case "initialize":
			p.line("── agent process %d", process)
			p.line("→ initialize")
		case "session/new":
			p.line("→ new session")
		case "session/load":
			p.line("→ load session %d", p.sessions[str(params["sessionId"])])
		case "session/resume":
			p.line("→ resume session %d", p.sessions[str(params["sessionId"])])
		case "session/prompt":
			text := ""
			if blocks, ok := params["prompt"].([]any); ok {
				for _, b := range blocks {
					if m, ok := b.(map[string]any); ok {
						text += str(m["text"])
					}
				}
			}
			p.line("")
			p.line("▶ you: %s", text)
		case "session/set_mode":
			p.line("→ set mode %s", str(params["modeId"]))
		case "session/set_config_option":
			p.line("→ set %s = %v", str(params["configId"]), params["value"])
		default:
			p.line("→ %s", f.Method)
		}
	case f.Method == "session/cancel":
		p.line("⨯ the editor cancels the turn")
	case len(f.ID) > 0:
		if p.theirs[string(f.ID)] == "session/request_permission" {
			var r struct {
				Outcome struct{ Outcome, OptionID string } `json:"outcome"`
			}
			json.Unmarshal(f.Result, &r)
			answer := r.Outcome.Outcome
			if r.Outcome.OptionID != "" {
				answer = r.Outcome.OptionID
			}
			p.line("  ? the editor answers: %s", answer)
		}
	}
}

// Received implements Observer.
func (p *Printer) Received(process int, msg []byte) {
	var f printedFrame
	if json.Unmarshal(msg, &f) != nil {
		return
	}
	p.release(frameAnchor(&f))
	switch {
	case f.Method == "session/update":
		p.update(f.Params)
	case f.Method != "" && len(f.ID) > 0:
		p.theirs[string(f.ID)] = f.Method
		var params map[string]any
		json.Unmarshal(f.Params, &params)
		switch f.Method {
		case "session/request_permission":
			title := ""
			if tc, ok := params["toolCall"].(map[string]any); ok {
				title = p.titles[str(tc["toolCallId"])]
			}
			p.line("  ? cordis asks permission for %q", title)
		case "terminal/create":
			args, _ := params["args"].([]any)
			var parts []string
			for _, a := range args {
				parts = append(parts, str(a))
			}
			p.line("  ⇄ terminal: %s %s", str(params["command"]), oneLine(strings.Join(parts, " "), 120))
		case "fs/read_text_file", "fs/write_text_file":
			p.line("  ⇄ %s %s", f.Method, str(params["path"]))
		}
	case f.Method != "":
		if f.Method == "$/cancel_request" {
			return
		}
		p.line("← %s", f.Method)
	case len(f.ID) > 0:
		method := p.ours[string(f.ID)]
		if f.Error != nil {
			p.line("← %s failed: %s", method, f.Error.Message)
			return
		}
		var result map[string]any
		json.Unmarshal(f.Result, &result)
		switch method {
		case "initialize":
			if info, ok := result["agentInfo"].(map[string]any); ok {
				p.line("← %s %s (ACP %v)", str(info["name"]), str(info["version"]), result["protocolVersion"])
			}
		case "session/new":
			id := str(result["sessionId"])
			p.sessions[id] = len(p.sessions) + 1
			p.line("← session %d", p.sessions[id])
		case "session/prompt":
			p.line("■ turn ended: %s", str(result["stopReason"]))
		}
	}
}

func (p *Printer) update(raw json.RawMessage) {
	var n struct {
		SessionID string         `json:"sessionId"`
		Update    map[string]any `json:"update"`
	}
	if json.Unmarshal(raw, &n) != nil {
		return
	}
	u := n.Update
	text := func() string {
		if c, ok := u["content"].(map[string]any); ok {
			return str(c["text"])
		}
		return ""
	}
	switch str(u["sessionUpdate"]) {
	case "agent_message_chunk":
		if !p.inText {
			fmt.Fprint(p.w, "  cordis: ")
			p.inText = true
		}
		fmt.Fprint(p.w, strings.ReplaceAll(text(), "\n", "\n          "))
	case "agent_thought_chunk":
		p.line("  (thinking) %s", oneLine(text(), 200))
	case "user_message_chunk":
		p.line("  (history) you: %s", oneLine(text(), 200))
	case "tool_call":
		id := str(u["toolCallId"])
		title := str(u["title"])
		// A Task (Agent) call is titled with its description, which often
		// reads like another tool's title ("Read notes.txt"): name it.
		if in, _ := u["rawInput"].(map[string]any); in != nil && in["prompt"] != nil && in["description"] != nil {
			title = fmt.Sprintf("Task (%s): %s", cmp.Or(str(in["subagent_type"]), "general-purpose"), title)
		}
		p.titles[id] = title
		p.line("%s◆ %s [%s] %s", p.indent(u), title, str(u["kind"]), oneLine(compact(u["rawInput"]), 160))
	case "tool_call_update":
		status := str(u["status"])
		if status != "completed" && status != "failed" {
			return
		}
		mark := "✓"
		if status == "failed" {
			mark = "✗"
		}
		detail := ""
		if content, ok := u["content"].([]any); ok {
			for _, c := range content {
				m, _ := c.(map[string]any)
				switch str(m["type"]) {
				case "content":
					if inner, ok := m["content"].(map[string]any); ok && detail == "" {
						detail = oneLine(str(inner["text"]), 160)
					}
				case "diff":
					detail = "diff of " + str(m["path"])
				case "terminal":
					if detail == "" {
						detail = "terminal " + str(m["terminalId"])
					}
				}
			}
		}
		p.line("%s%s %s %s: %s", p.indent(u), mark, p.titles[str(u["toolCallId"])], status, detail)
	case "plan":
		p.line("  ☰ plan:")
		entries, _ := u["entries"].([]any)
		for _, e := range entries {
			m, _ := e.(map[string]any)
			p.line("     [%s] %s", str(m["status"]), str(m["content"]))
		}
	case "current_mode_update":
		p.line("  · mode is now %s", str(u["currentModeId"]))
	}
}

// indent is the margin of a tool call's line: deeper for a subagent's
// call, which names its Task call in _meta.parentToolCallId (as Zed nests
// it).
func (p *Printer) indent(u map[string]any) string {
	if meta, _ := u["_meta"].(map[string]any); meta != nil && str(meta["parentToolCallId"]) != "" {
		return "      "
	}
	return "  "
}

// frameAnchor names the log event a frame reports, if any: the log
// records it first, so every log event up to it belongs before the frame.
func frameAnchor(f *printedFrame) string {
	switch {
	case f.Method == "session/update":
		var n struct {
			Update struct {
				Kind   string `json:"sessionUpdate"`
				ID     string `json:"toolCallId"`
				Status string `json:"status"`
			} `json:"update"`
		}
		json.Unmarshal(f.Params, &n)
		switch {
		case n.Update.Kind == "tool_call":
			return "tool/call:" + n.Update.ID
		case n.Update.Kind == "tool_call_update" && (n.Update.Status == "completed" || n.Update.Status == "failed"):
			return "tool/result:" + n.Update.ID
		}
	case f.Method == "" && len(f.Result) > 0:
		var r struct {
			StopReason string `json:"stopReason"`
		}
		if json.Unmarshal(f.Result, &r) == nil && r.StopReason != "" {
			return "turn/end"
		}
	}
	return ""
}

// Logged implements Observer: the event waits in a queue (ordered by its
// time) until the frame it precedes arrives.
func (p *Printer) Logged(sessionID, agentID string, event []byte) {
	var ev struct {
		Time string         `json:"time"`
		Type string         `json:"type"`
		Data map[string]any `json:"data"`
	}
	if json.Unmarshal(event, &ev) != nil {
		return
	}
	le := loggedEvent{time: ev.Time, typ: ev.Type, agentID: agentID, data: ev.Data}
	switch ev.Type {
	case "tool/call", "tool/result":
		le.anchor = ev.Type + ":" + str(ev.Data["toolCallId"])
	case "turn/end":
		le.anchor = "turn/end"
	}
	i := len(p.queue)
	for i > 0 && p.queue[i-1].time > le.time { // RFC 3339 UTC sorts as text
		i--
	}
	p.queue = append(p.queue, loggedEvent{})
	copy(p.queue[i+1:], p.queue[i:])
	p.queue[i] = le
}

// release prints the queued log events that come before a frame: up to
// and including its anchor when queued, otherwise up to the first event
// that is some later frame's anchor.
func (p *Printer) release(anchor string) {
	n := -1
	if anchor != "" {
		for i, le := range p.queue {
			if le.anchor == anchor {
				n = i + 1
				break
			}
		}
	}
	if n < 0 {
		n = 0
		for n < len(p.queue) && p.queue[n].anchor == "" {
			n++
		}
	}
	for _, le := range p.queue[:n] {
		p.logged(le)
	}
	p.queue = p.queue[n:]
}

// Done implements Observer: whatever the log still holds is printed.
func (p *Printer) Done() {
	for _, le := range p.queue {
		p.logged(le)
	}
	p.queue = nil
}

// logged prints hook outcomes, permission decisions and the other events
// that only the session log shows.
func (p *Printer) logged(le loggedEvent) {
	d := le.data
	who := ""
	if le.agentID != "" {
		who = " (subagent)"
	}
	switch le.typ {
	case "hook/result":
		decision, _ := d["decision"].(map[string]any)
		if len(decision) == 0 {
			return
		}
		data := compact(decision)
		p.line("  ⚑ hook %s %s%s: %s", str(d["event"]), str(d["hook"]), who, oneLine(data, 200))
	case "hook/error":
		p.line("  ⚑ hook error%s: %s", who, oneLine(compact(d), 200))
	case "permission":
		verdict := "denied"
		if d["allowed"] == true {
			verdict = "allowed"
		}
		extra := str(d["optionId"])
		if m := str(d["message"]); m != "" {
			extra = strings.TrimSpace(extra + " " + m)
		}
		p.line("  ⚖ %s", strings.TrimSpace(fmt.Sprintf("%s by %s%s %s", verdict, str(d["source"]), who, oneLine(extra, 160))))
	case "steering":
		p.line("  ↻ steering%s: %s", who, oneLine(str(d["reason"])+str(d["message"]), 200))
	case "turn/rejected":
		p.line("  ⛔ prompt blocked: %s", oneLine(str(d["reason"]), 200))
	case "model/error":
		p.line("  ! model error%s: %s", who, oneLine(str(d["error"]), 400))
	case "subagent/start":
		p.line("  ⤷ subagent %s started (%s)", str(d["agentType"]), str(d["description"]))
	case "subagent/end":
		p.line("  ⤶ subagent ended: %s", str(d["stopReason"]))
	}
}

func str(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

// compact encodes v as one line of JSON without HTML escaping.
func compact(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return strings.TrimSpace(b.String())
}
