package sessionlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Version is the highest envelope version this package reads. It writes
// version 1 unless the data asks for more (Versioned).
//
// Version 2 (issue 23): a line a version-1 reader would misread without
// an error. The loop writes it for a context/message whose tool results
// leave their text to the tool/result events before it, and for a
// tool/result whose editor content is left to be derived from its
// output (loop/events.go); such a log is refused by an older cordis
// rather than shown with empty tool results.
const Version = 2

// Versioned is event data that needs a reader of at least LogVersion.
type Versioned interface{ LogVersion() int }

// versionOf is the version a line holding data is written with.
func versionOf(data any) int {
	if d, ok := data.(Versioned); ok {
		return max(1, min(d.LogVersion(), Version))
	}
	return 1
}

// MaxLineSize is the longest line (including its '\n') that Append writes and
// Read accepts. It is generous because a tool result can carry a large output;
// Append refuses anything longer so that every log it writes stays readable.
const MaxLineSize = 64 << 20

// Event is one line of a session log.
type Event struct {
	V    int             `json:"v"`
	Seq  int64           `json:"seq"`
	Time time.Time       `json:"time"`
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// Event types the loop writes. This package treats Data as opaque except where
// a comment says List reads a field; the loop owns the data shapes.
const (
	// TypeSessionStart is the first event of every log. Data: sessionId, cwd,
	// additionalDirectories, model, mode, created. List reads cwd and
	// additionalDirectories.
	TypeSessionStart = "session/start"
	// TypeSessionLoad marks that the session was loaded (session/load) and the
	// log reopened for appending.
	TypeSessionLoad = "session/load"
	// TypeTurnStart opens a turn. Data: turnId, prompt (a plain-text summary of
	// the user's prompt). List uses the first turn's prompt as the title.
	TypeTurnStart = "turn/start"
	// TypeUserPrompt is the prompt as the editor sent it (turnId, content
	// blocks), so that session/load can replay what the user typed.
	TypeUserPrompt = "user/prompt"
	// TypeMessage is one full conversation message as the loop keeps it (an
	// llm message); session/load rebuilds the model's context from these.
	// A message with toolOutputs (version 2) leaves the text of those
	// tool_results to the tool/result events before it: each tool output
	// is stored once.
	TypeMessage = "context/message"
	// TypeModelRequest summarizes a model call: model, message count, tool
	// names, system prompt hash (not the whole request, which is derivable).
	TypeModelRequest = "model/request"
	// TypeModelResponse is a model's answer: stopReason, usage, content.
	TypeModelResponse = "model/response"
	// TypeModelError is a failed model call: error, kind.
	TypeModelError = "model/error"
	// TypeToolCall is a tool call the model made: toolCallId, name, input,
	// title, kind.
	TypeToolCall = "tool/call"
	// TypePermission is a permission decision: toolCallId, decision,
	// optionId, source (hook, editor, policy).
	TypePermission = "permission"
	// TypeToolResult is a tool's outcome: toolCallId, status, output,
	// isError, content (left out, version 2, when it is the output as
	// text).
	TypeToolResult = "tool/result"
	// TypeHookStart, TypeHookResult and TypeHookError record every hook run.
	TypeHookStart  = "hook/start"
	TypeHookResult = "hook/result"
	TypeHookError  = "hook/error"
	// TypeSteering is a message injected into a running turn (for example a
	// Stop hook's block reason).
	TypeSteering = "steering"
	// TypeSubagentStart and TypeSubagentEnd bracket a Task subagent, whose
	// own events go to SubagentPath.
	TypeSubagentStart = "subagent/start"
	TypeSubagentEnd   = "subagent/end"
	// TypeTurnEnd closes a turn. Data: stopReason.
	TypeTurnEnd = "turn/end"
	// TypeTurnRejected records a prompt blocked before the model saw it.
	TypeTurnRejected = "turn/rejected"
	// TypePlan is the agent's plan (TodoWrite) as shown to the editor.
	TypePlan = "plan"
	// TypeNotice is an informational message shown to the user.
	TypeNotice = "notice"
	// TypeModeChange records a session mode switch.
	TypeModeChange = "mode/change"
	// TypeConfigChange records a session config option change.
	TypeConfigChange = "config/change"
	// TypeCommand records a slash command and its expansion.
	TypeCommand = "command"
	// TypeStreamText is model text written while it streams, in batches,
	// ahead of the message that holds all of it: what a crash mid-stream
	// leaves of the answer.
	TypeStreamText = "stream/text"
	// TypeAgentText is text cordis itself showed the user.
	TypeAgentText = "agent/text"
	// TypeClear records /clear dropping the model's context.
	TypeClear = "context/clear"
	// TypeCompaction records the history replaced by a summary.
	TypeCompaction = "context/compaction"
	// TypeTruncate records the history cut back to its first messages.
	TypeTruncate = "context/truncate"
	// TypeSessionTitle sets the thread's title (generated after the first
	// turn, or /rename). Data: title.
	TypeSessionTitle = "session/title"
)

// errUnsupportedVersion marks an event written by a newer cordis.
var errUnsupportedVersion = errors.New("unsupported log version")

// errNotJSON marks a line that is not syntactically JSON: the signature of a
// torn write, tolerated only at the end of a log.
type errNotJSON struct{ err error }

func (e errNotJSON) Error() string { return e.err.Error() }

// decodeLine parses one line (without its '\n'). It returns errNotJSON when
// the line is not JSON at all, and another error when it is JSON but not a
// valid event; only the former can be a torn write.
func decodeLine(line []byte) (Event, error) {
	ev, ok := decodeWritten(line)
	var err error
	if !ok {
		ev = Event{}
		err = json.Unmarshal(line, &ev)
		if err != nil && !json.Valid(line) {
			return Event{}, errNotJSON{err}
		}
	}
	// Check the version before other errors: a newer format may change field
	// types, and "unsupported version" is the useful message then.
	if ev.V > Version {
		return Event{}, fmt.Errorf("%w %d (this build reads version %d)", errUnsupportedVersion, ev.V, Version)
	}
	if err != nil {
		return Event{}, fmt.Errorf("corrupt event: %w", err)
	}
	switch {
	case ev.V < 1:
		return Event{}, errors.New(`corrupt event: missing or invalid "v"`)
	case ev.Seq < 1:
		return Event{}, errors.New(`corrupt event: missing or invalid "seq"`)
	case ev.Type == "":
		return Event{}, errors.New(`corrupt event: missing "type"`)
	}
	return ev, nil
}

// decodeWritten decodes a line laid out exactly as encodeLine writes it,
// {"v":N,"seq":N,"time":"...","type":"...","data":...}, scanning data once
// (json.Valid) where json.Unmarshal scans the line twice and goes through
// reflection: Read of a long log (session/load) spends most of its time
// here. It reports false for anything else, which json.Unmarshal then
// decides; what it accepts, json.Unmarshal decodes to the same Event.
func decodeWritten(line []byte) (Event, bool) {
	var ev Event
	rest, ok := bytes.CutPrefix(line, []byte(`{"v":`))
	if !ok {
		return ev, false
	}
	v, rest, ok := cutNatural(rest)
	if !ok {
		return ev, false
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"seq":`)); !ok {
		return ev, false
	}
	seq, rest, ok := cutNatural(rest)
	if !ok {
		return ev, false
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"time":`)); !ok {
		return ev, false
	}
	t, rest, ok := cutPlainString(rest)
	if !ok || ev.Time.UnmarshalJSON(t) != nil {
		return Event{}, false
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"type":`)); !ok {
		return Event{}, false
	}
	typ, rest, ok := cutPlainString(rest)
	if !ok {
		return Event{}, false
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"data":`)); !ok {
		return Event{}, false
	}
	data, ok := bytes.CutSuffix(rest, []byte("}"))
	if !ok || len(data) == 0 || isSpace(data[0]) || isSpace(data[len(data)-1]) || !json.Valid(data) {
		return Event{}, false
	}
	ev.V, ev.Seq, ev.Type = int(v), seq, string(typ[1:len(typ)-1])
	ev.Data = bytes.Clone(data)
	return ev, true
}

// cutNatural cuts a JSON number that is a natural number of at most 15
// digits (no sign, fraction, exponent or leading zero) off the front of b.
func cutNatural(b []byte) (int64, []byte, bool) {
	n := 0
	for n < len(b) && b[n] >= '0' && b[n] <= '9' {
		n++
	}
	if n == 0 || n > 15 || (b[0] == '0' && n > 1) {
		return 0, b, false
	}
	var v int64
	for _, c := range b[:n] {
		v = v*10 + int64(c-'0')
	}
	return v, b[n:], true
}

// cutPlainString cuts a JSON string of printable ASCII without escapes
// (quotes included) off the front of b.
func cutPlainString(b []byte) ([]byte, []byte, bool) {
	if len(b) == 0 || b[0] != '"' {
		return nil, b, false
	}
	for i := 1; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return b[:i+1], b[i+1:], true
		case c == '\\' || c < 0x20 || c > 0x7e:
			return nil, b, false
		}
	}
	return nil, b, false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
