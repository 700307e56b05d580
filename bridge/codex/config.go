package codex

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/cordis-agent/cordis/bridge/internal/guard"
	"github.com/cordis-agent/cordis/hooks"
)

// Config is the `bridge/codex` plugin's entry in cordis.yml.
type Config struct {
	Path string `yaml:"path,omitempty" json:"path,omitempty" jsonschema:"description=A Codex hook file to run: a hooks.json or (by its .toml extension) a config.toml whose [hooks] table is read (relative paths are resolved against the directory of the config file). Without it: ~/.codex/hooks.json and ~/.codex/config.toml then <session cwd>/.codex/hooks.json and <session cwd>/.codex/config.toml; project hooks run only after 'cordis hooks trust'"`
	// GuardFailure is what happens to a tool call when one of its
	// PreToolUse or PermissionRequest hooks could not run.
	GuardFailure guard.Policy `yaml:"guardFailure,omitempty" json:"guardFailure,omitempty" jsonschema:"enum=proceed,enum=deny,description=What happens to a tool call when one of its PreToolUse or PermissionRequest hooks could not run (did not start; was not found; timed out; was killed): proceed (the default and Codex's behaviour: the run is Failed and the call goes on as if the hook had not run) or deny (the call is refused). The editor is told either way."`
}

// Codex's event keys, each a seam of cordis.
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
	{hooks.PostCompact, evPostCompact},
	{hooks.SessionEnd, evSessionEnd},
	{hooks.Interrupt, evInterrupt},
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
// SessionEnd and Interrupt get 1 s by default and at most 3 s.
const (
	defaultTimeout    = 600 * time.Second
	sessionEndDefault = 1 * time.Second
	sessionEndMax     = 3 * time.Second
)

// shortEvent reports whether event's hooks have SessionEnd's short
// timeouts (Codex: SessionEnd and Interrupt).
func shortEvent(event string) bool { return event == evSessionEnd || event == evInterrupt }

// handler is one command hook of a hooks.json file.
type handler struct {
	event   string
	matcher *matcher
	command string
	timeout time.Duration
	// status is statusMessage, kept for the log.
	status string
	// async runs the hook in the background (`async: true`).
	async bool
	// group and index place the handler in its file, for messages.
	group, index int
	file         *hookFile
}

// hookFile is a parsed hook file (a hooks.json, or the [hooks] table of
// a config.toml): its handlers per Codex event in configuration order,
// and what was wrong with it. A file with a fatal problem (malformed JSON
// or TOML, an unknown event key) has no handlers.
type hookFile struct {
	path     string
	handlers map[string][]*handler
	problems []string
	// all lists every handler in file order (in a config.toml, whose
	// table keys have no order, events come in Codex's order), for trust
	// and reports.
	all []*handler
	// toml is set for a config.toml (messages describe TOML shapes).
	toml bool
	// declared is set when the file declares at least one matcher group
	// (whether or not its handlers run): what makes Codex warn about a
	// layer with both a hooks.json and [hooks] in its config.toml.
	declared bool
}

func newHookFile(path string, toml bool) *hookFile {
	return &hookFile{path: path, toml: toml, handlers: map[string][]*handler{}}
}

// fail records a fatal problem: the file is ignored as a whole.
func (f *hookFile) fail(format string, args ...any) *hookFile {
	return f.failWith(fmt.Sprintf("%s: %s", f.path, fmt.Sprintf(format, args...)))
}

func (f *hookFile) failWith(problem string) *hookFile {
	what := "the file is ignored"
	if f.toml {
		what = "its hooks are ignored"
	}
	f.problems = append(f.problems, problem+"; "+what)
	f.handlers, f.all, f.declared = map[string][]*handler{}, nil, false
	return f
}

// parseFile parses a Codex hooks.json: {"description"?, "hooks": {"<Event>":
// [{"matcher"?, "hooks": [{"type": "command", "command", "timeout",
// "statusMessage"}]}]}}. A file that is not JSON, or whose "hooks" is not
// an object of events, is ignored as a whole and described in problems.
// A bad entry (an unknown event, a group or handler of the wrong shape, a
// field of the wrong type, an invalid matcher) or a handler Codex would
// not run (prompt/agent/mcp_tool handlers, empty commands)
// is skipped alone and described in problems: Codex ignores the whole
// file there, but then one mistyped field silently drops every guard of
// the file, so cordis keeps the good entries and reports the bad one.
func parseFile(path string, data []byte) *hookFile {
	f := newHookFile(path, false)
	if len(bytes.TrimSpace(data)) == 0 {
		return f // an empty file declares nothing
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return f.fail("not a valid hooks.json: %s", jsonError(data, err))
	}
	rawHooks, ok := top["hooks"]
	if !ok || isNull(rawHooks) {
		return f
	}
	events, keys, err := orderedObject(rawHooks)
	if err != nil {
		return f.fail(`"hooks" must be an object of event names; %v`, err)
	}
	return f.parseEvents(events, keys)
}

// skip records a problem with one entry of the file, which is skipped.
func (f *hookFile) skip(format string, args ...any) {
	f.problems = append(f.problems, fmt.Sprintf("%s: %s", f.path, fmt.Sprintf(format, args...)))
}

// parseEvents parses the hooks object of a file: its event keys in
// configuration order, each with its list of matcher groups. The
// config.toml form arrives here converted to JSON (see parseTOMLFile), so
// that both forms are validated by the same code.
func (f *hookFile) parseEvents(events map[string]json.RawMessage, keys []string) *hookFile {
	for _, ev := range keys {
		if !isCodexEvent(ev) {
			f.skip("hooks.%s: unknown event (Codex events: %s); its hooks are skipped", ev, strings.Join(codexEvents, ", "))
			continue
		}
		var groups []json.RawMessage
		if isNull(events[ev]) {
			continue
		}
		if err := json.Unmarshal(events[ev], &groups); err != nil {
			if f.toml {
				f.skip("hooks.%s must be an array of tables ([[hooks.%s]]); its hooks are skipped", ev, ev)
			} else {
				f.skip("hooks.%s must be a list of matcher groups; its hooks are skipped", ev)
			}
			continue
		}
		if len(groups) > 0 {
			f.declared = true
		}
		for gi, rg := range groups {
			var g struct {
				Matcher *string           `json:"matcher"`
				Hooks   []json.RawMessage `json:"hooks"`
			}
			if err := json.Unmarshal(rg, &g); err != nil {
				if f.toml {
					f.skip("hooks.%s[%d] must be a table with an optional matcher and [[hooks.%s.hooks]] handlers: %s; the group is skipped", ev, gi, ev, fieldError(err))
				} else {
					f.skip("hooks.%s[%d] must be {\"matcher\", \"hooks\": [...]}: %s; the group is skipped", ev, gi, fieldError(err))
				}
				continue
			}
			raw := ""
			if g.Matcher != nil {
				raw = *g.Matcher
			}
			m, err := compileMatcher(raw)
			if err != nil {
				f.skip("hooks.%s[%d]: %v; the group is skipped", ev, gi, err)
				continue
			}
			for hi, rh := range g.Hooks {
				where := fmt.Sprintf("hooks.%s[%d].hooks[%d]", ev, gi, hi)
				h, skip, err := parseHandler(rh, ev)
				if err != nil {
					shape := `{"type": "command", "command": ...}`
					if f.toml {
						shape = `a table with type = "command" and command = "..."`
					}
					f.skip("%s: a handler must be %s: %v; skipped", where, shape, err)
					continue
				}
				if skip != "" {
					f.skip("%s: %s; skipped", where, skip)
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
		return nil, "", errors.New(fieldError(err))
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
	h = &handler{event: event, command: *r.Command, status: r.StatusMessage, timeout: defaultTimeout, async: r.Async}
	secs := r.Timeout
	if secs == nil {
		secs = r.TimeoutSec
	}
	if shortEvent(event) {
		h.timeout = sessionEndDefault
	}
	if secs != nil {
		h.timeout = secondsTimeout(*secs)
	}
	if shortEvent(event) {
		h.timeout = min(h.timeout, sessionEndMax)
	}
	return h, "", nil
}

// maxTimeout caps a configured timeout (a week is as good as forever for
// a hook, and keeps huge values from overflowing a time.Duration).
const maxTimeout = 7 * 24 * time.Hour

// secondsTimeout is a configured timeout in seconds as a duration: at
// least 1 s (as Codex), at most maxTimeout.
func secondsTimeout(secs float64) time.Duration {
	if !(secs < maxTimeout.Seconds()) { // also NaN
		return maxTimeout
	}
	return time.Duration(max(secs, 1) * float64(time.Second))
}

// fieldError words a JSON decoding error of a group or handler: which
// field has the wrong type.
func fieldError(err error) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err.Error()
	}
	field := te.Field
	if i := strings.LastIndexByte(field, '.'); i >= 0 {
		field = field[i+1:]
	}
	want := "a " + te.Type.String()
	switch te.Type.Kind() {
	case reflect.String:
		want = "a string"
	case reflect.Float64:
		want = "a number"
	case reflect.Bool:
		want = "a boolean"
	case reflect.Slice:
		want = "a list"
	case reflect.Struct, reflect.Map:
		want = "an object"
	}
	if field == "" {
		return "got " + te.Value + ", want " + strings.TrimPrefix(strings.TrimPrefix(want, "a "), "an ")
	}
	return fmt.Sprintf("%q must be %s", field, want)
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
