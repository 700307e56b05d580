package codex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/cordis-agent/cordis/hooks"
)

// Config is the `bridge/codex` plugin's entry in cordis.yml.
type Config struct {
	Path string `yaml:"path,omitempty" json:"path,omitempty" jsonschema:"description=A Codex hooks.json file to run (relative paths are resolved against the directory of the config file). Without it: ~/.codex/hooks.json and <session cwd>/.codex/hooks.json; project hooks run only after 'cordis hooks trust'"`
}

// Codex's event keys. Every key is a seam of cordis except PostCompact and
// Interrupt, which are accepted (a Codex file may declare them) and never
// run.
const (
	evSessionStart      = "SessionStart"
	evSessionEnd        = "SessionEnd"
	evUserPromptSubmit  = "UserPromptSubmit"
	evPreToolUse        = "PreToolUse"
	evPermissionRequest = "PermissionRequest"
	evPostToolUse       = "PostToolUse"
	evPreCompact        = "PreCompact"
	evPostCompact       = "PostCompact"
	evSubagentStart     = "SubagentStart"
	evSubagentStop      = "SubagentStop"
	evStop              = "Stop"
	evInterrupt         = "Interrupt"
)

// codexEvents are the keys a Codex hooks.json may use.
var codexEvents = []string{
	evSessionStart, evSessionEnd, evUserPromptSubmit, evPreToolUse, evPermissionRequest,
	evPostToolUse, evPreCompact, evPostCompact, evSubagentStart, evSubagentStop, evStop, evInterrupt,
}

// unsupportedEvents are Codex events cordis has no seam for.
var unsupportedEvents = map[string]bool{evPostCompact: true, evInterrupt: true}

// seamEvents maps each cordis seam the bridge registers on to the Codex
// event it runs. PostToolUseFailure runs Codex's PostToolUse: Codex has no
// failure event and fires PostToolUse after failed tools too.
var seamEvents = []struct {
	seam  hooks.Event
	codex string
}{
	{hooks.SessionStart, evSessionStart},
	{hooks.UserPromptSubmit, evUserPromptSubmit},
	{hooks.PreToolUse, evPreToolUse},
	{hooks.PermissionRequest, evPermissionRequest},
	{hooks.PostToolUse, evPostToolUse},
	{hooks.PostToolUseFailure, evPostToolUse},
	{hooks.Stop, evStop},
	{hooks.SubagentStart, evSubagentStart},
	{hooks.SubagentStop, evSubagentStop},
	{hooks.PreCompact, evPreCompact},
	{hooks.SessionEnd, evSessionEnd},
}

func codexEventOf(e hooks.Event) (string, bool) {
	for _, s := range seamEvents {
		if s.seam == e {
			return s.codex, true
		}
	}
	return "", false
}

// Timeouts, in Codex's units (seconds): 600 by default, at least 1;
// SessionEnd gets 1 s by default and at most 3 s.
const (
	defaultTimeout    = 600 * time.Second
	sessionEndDefault = 1 * time.Second
	sessionEndMax     = 3 * time.Second
)

// handler is one command hook of a hooks.json file.
type handler struct {
	event   string
	matcher *matcher
	command string
	timeout time.Duration
	// status is statusMessage, kept for the log.
	status string
	// group and index place the handler in its file, for messages.
	group, index int
	file         *hookFile
}

// hookFile is a parsed hooks.json: its handlers per Codex event in
// configuration order, and what was wrong with it. A file with a fatal
// problem (malformed JSON, an unknown event key) has no handlers.
type hookFile struct {
	path     string
	handlers map[string][]*handler
	problems []string
	// all lists every handler in file order, for trust and reports.
	all []*handler
}

// parseFile parses a Codex hooks.json: {"description"?, "hooks": {"<Event>":
// [{"matcher"?, "hooks": [{"type": "command", "command", "timeout",
// "statusMessage"}]}]}}. A malformed file, or one that names an unknown
// event, is ignored as a whole (as Codex does) and described in problems;
// a group with an invalid matcher, or a handler Codex would not run
// (prompt/agent/mcp_tool handlers, async hooks, empty commands), is
// skipped alone.
func parseFile(path string, data []byte) *hookFile {
	f := &hookFile{path: path, handlers: map[string][]*handler{}}
	fail := func(format string, args ...any) *hookFile {
		f.problems = append(f.problems, fmt.Sprintf("%s: %s; the file is ignored", path, fmt.Sprintf(format, args...)))
		f.handlers, f.all = map[string][]*handler{}, nil
		return f
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return f // an empty file declares nothing
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return fail("not a valid hooks.json: %s", jsonError(data, err))
	}
	rawHooks, ok := top["hooks"]
	if !ok || isNull(rawHooks) {
		return f
	}
	events, keys, err := orderedObject(rawHooks)
	if err != nil {
		return fail(`"hooks" must be an object of event names; %v`, err)
	}
	for _, ev := range keys {
		if !isCodexEvent(ev) {
			return fail("unknown event %q (Codex events: %s)", ev, strings.Join(codexEvents, ", "))
		}
	}
	for _, ev := range keys {
		var groups []json.RawMessage
		if isNull(events[ev]) {
			continue
		}
		if err := json.Unmarshal(events[ev], &groups); err != nil {
			return fail("hooks.%s must be a list of matcher groups", ev)
		}
		if unsupportedEvents[ev] && len(groups) > 0 {
			f.problems = append(f.problems, fmt.Sprintf("%s: hooks.%s: cordis has no %s event; these hooks never run", path, ev, ev))
			continue
		}
		for gi, rg := range groups {
			var g struct {
				Matcher *string           `json:"matcher"`
				Hooks   []json.RawMessage `json:"hooks"`
			}
			if err := json.Unmarshal(rg, &g); err != nil {
				return fail("hooks.%s[%d] must be {\"matcher\", \"hooks\": [...]}: %v", ev, gi, err)
			}
			raw := ""
			if g.Matcher != nil {
				raw = *g.Matcher
			}
			m, err := compileMatcher(raw)
			if err != nil {
				f.problems = append(f.problems, fmt.Sprintf("%s: hooks.%s[%d]: %v; the group is skipped", path, ev, gi, err))
				continue
			}
			for hi, rh := range g.Hooks {
				where := fmt.Sprintf("%s: hooks.%s[%d].hooks[%d]", path, ev, gi, hi)
				h, skip, err := parseHandler(rh, ev)
				if err != nil {
					return fail("hooks.%s[%d].hooks[%d]: %v", ev, gi, hi, err)
				}
				if skip != "" {
					f.problems = append(f.problems, where+": "+skip+"; skipped")
					continue
				}
				h.matcher, h.group, h.index, h.file = m, gi, hi, f
				f.handlers[ev] = append(f.handlers[ev], h)
				f.all = append(f.all, h)
			}
		}
	}
	return f
}

// parseHandler decodes one handler. skip explains why a well-formed
// handler does not run.
func parseHandler(raw json.RawMessage, event string) (h *handler, skip string, err error) {
	var r struct {
		Type          string   `json:"type"`
		Command       *string  `json:"command"`
		Timeout       *float64 `json:"timeout"`
		TimeoutSec    *float64 `json:"timeout_sec"`
		StatusMessage string   `json:"statusMessage"`
		Async         bool     `json:"async"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, "", fmt.Errorf("a handler must be {\"type\": \"command\", \"command\": ...}: %v", err)
	}
	switch r.Type {
	case "command", "":
	case "prompt", "agent", "mcp_tool", "http":
		return nil, fmt.Sprintf("%s handlers are not supported by the Codex bridge", r.Type), nil
	default:
		return nil, fmt.Sprintf("unknown handler type %q (want \"command\")", r.Type), nil
	}
	if r.Command == nil || strings.TrimSpace(*r.Command) == "" {
		return nil, "a command handler needs a non-empty \"command\"", nil
	}
	if r.Async {
		return nil, "async hooks are not supported", nil
	}
	h = &handler{event: event, command: *r.Command, status: r.StatusMessage, timeout: defaultTimeout}
	secs := r.Timeout
	if secs == nil {
		secs = r.TimeoutSec
	}
	if event == evSessionEnd {
		h.timeout = sessionEndDefault
	}
	if secs != nil {
		h.timeout = time.Duration(max(*secs, 1) * float64(time.Second))
	}
	if event == evSessionEnd {
		h.timeout = min(h.timeout, sessionEndMax)
	}
	return h, "", nil
}

func isCodexEvent(ev string) bool {
	for _, e := range codexEvents {
		if e == ev {
			return true
		}
	}
	return false
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// orderedObject decodes a JSON object keeping its key order (hooks run in
// configuration order, so event keys are never ranged as a map).
func orderedObject(raw json.RawMessage) (map[string]json.RawMessage, []string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, fmt.Errorf("got %s", describeJSON(raw))
	}
	out := map[string]json.RawMessage{}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		key := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		if _, dup := out[key]; dup {
			return nil, nil, fmt.Errorf("event %q appears twice", key)
		}
		out[key] = v
		keys = append(keys, key)
	}
	return out, keys, nil
}

func describeJSON(raw json.RawMessage) string {
	s := bytes.TrimSpace(raw)
	if len(s) == 0 {
		return "nothing"
	}
	switch s[0] {
	case '[':
		return "a list"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// jsonError words a decoding error with the line and column it happened at.
func jsonError(data []byte, err error) string {
	var off int64 = -1
	switch e := err.(type) {
	case *json.SyntaxError:
		off = e.Offset
	case *json.UnmarshalTypeError:
		if e.Value == "array" || e.Value == "string" || e.Value == "number" || e.Value == "bool" {
			return "the top level must be an object with a \"hooks\" key"
		}
		off = e.Offset
	}
	if off < 0 {
		return err.Error()
	}
	line, col := 1, 1
	for _, b := range data[:min(int(off), len(data))] {
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("line %d, column %d: %v", line, col, err)
}
