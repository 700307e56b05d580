package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cordis-agent/cordis/bridge/internal/guard"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/internal/trust"
)

// Config is the `bridge/claude` plugin's configuration.
type Config struct {
	// Path is a hooks file in Claude Code's settings shape (cmd/cordis
	// resolves a relative one against the config file's directory). Empty means
	// Claude Code's standard files for the session's cwd.
	Path string `yaml:"path,omitempty" json:"path,omitempty" jsonschema:"description=A hooks file in Claude Code settings shape (relative to the config file); empty: the standard files of each session (~/.claude/settings.json then <cwd>/.claude/settings.json then <cwd>/.claude/settings.local.json) merged; project hooks run only after 'cordis hooks trust'"`
	// GuardFailure is what happens to a tool call when one of its
	// PreToolUse or PermissionRequest hooks could not run.
	GuardFailure guard.Policy `yaml:"guardFailure,omitempty" json:"guardFailure,omitempty" jsonschema:"enum=proceed,enum=deny,description=What happens to a tool call when one of its PreToolUse or PermissionRequest hooks could not run (did not start; was not found; timed out; was killed): proceed (the default and Claude Code's behaviour: the call goes on as if the hook had not run) or deny (the call is refused). The editor is told either way."`
}

// handler is one `type: command` hook of a matcher group.
type handler struct {
	command string
	args    []string // exec form when non-nil
	timeout time.Duration
	shell   []string
	// async runs the hook in the background (`async`, or `asyncRewake`,
	// which implies it and sets rewake: an exit 2 wakes the model).
	async  bool
	rewake bool
	ifRule string
	// matcher is its group's.
	matcher matcher
	// id is the hook's identity in the trust store (a project file's
	// hooks run only once trusted).
	id trust.Hook
	// env are a plugin's variables, set in the hook's environment.
	env []string
}

func (h handler) Identity() trust.Hook { return h.id }

// Advisory: an async hook cannot block, so it is no guard.
func (h handler) Advisory() bool { return h.async }

type group struct {
	matcher matcher
	hooks   []handler
}

// settings is one parsed settings file.
type settings struct {
	events  map[hooks.Event][]group
	disable *bool
	// problems make the file (or part of it) unusable; warnings are
	// features cordis does not support.
	problems []string
	warnings []string
	// all lists every hook that can run, in file order (events sorted by
	// name), for trust.
	all []trust.Hook
}

// supportedEvents are the Claude Code events cordis has seams for, in the
// order Register registers them.
var supportedEvents = []hooks.Event{
	hooks.SessionStart, hooks.UserPromptSubmit, hooks.PreToolUse, hooks.PermissionRequest,
	hooks.PostToolUse, hooks.PostToolUseFailure, hooks.Stop, hooks.SubagentStart,
	hooks.SubagentStop, hooks.PreCompact, hooks.PostCompact, hooks.SessionEnd, hooks.Notification,
}

// sortedEvents are supportedEvents sorted by name: the order of a file's
// hooks (a JSON object's keys have none that encoding/json keeps).
var sortedEvents = func() []hooks.Event {
	out := slices.Clone(supportedEvents)
	slices.Sort(out)
	return out
}()

// otherClaudeEvents exist in Claude Code but have no seam in cordis: their
// hooks are loaded with a warning and never run.
var otherClaudeEvents = []string{
	"ConfigChange", "CwdChanged", "DirectoryAdded", "Elicitation", "ElicitationResult",
	"FileChanged", "InstructionsLoaded", "MessageDisplay", "PermissionDenied",
	"PostToolBatch", "Setup", "StopFailure", "TaskCompleted", "TaskCreated", "TeammateIdle",
	"UserPromptExpansion", "WorktreeCreate", "WorktreeRemove",
}

// parseSettings parses a settings (or hooks.json) file. A syntax error
// makes the whole file unusable (returned as an error); a bad event,
// group or handler is recorded in problems and skipped.
func parseSettings(path string, data []byte) (*settings, error) {
	var top struct {
		Hooks           json.RawMessage `json:"hooks"`
		DisableAllHooks *bool           `json:"disableAllHooks"`
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return &settings{}, nil
	}
	if err := json.Unmarshal(data, &top); err != nil {
		var syn *json.SyntaxError
		if isSettingsFile(path) && errors.As(err, &syn) {
			// Every reader of the file fails on it alike: the user is told
			// here, once, and the others keep quiet (cmd/cordis).
			return nil, fmt.Errorf("%w; nothing in this settings file applies until it is fixed: its hooks, permission rules (deny and ask included), enabledPlugins, MCP server approvals, defaultMode and additionalDirectories", describeJSONError(path, data, err))
		}
		return nil, describeJSONError(path, data, err)
	}
	s := &settings{events: map[hooks.Event][]group{}, disable: top.DisableAllHooks}
	if len(top.Hooks) == 0 || string(top.Hooks) == "null" {
		return s, nil
	}
	var byEvent map[string]json.RawMessage
	if err := json.Unmarshal(top.Hooks, &byEvent); err != nil {
		return nil, fmt.Errorf("%s: \"hooks\" must be an object mapping event names to lists of matcher groups", path)
	}
	names := make([]string, 0, len(byEvent))
	for name := range byEvent {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		ev := hooks.Event(name)
		if !slices.Contains(supportedEvents, ev) {
			if slices.Contains(otherClaudeEvents, name) {
				s.warnings = append(s.warnings, fmt.Sprintf("%s: hooks.%s: cordis has no %s event; these hooks never run", path, name, name))
			} else {
				s.problems = append(s.problems, fmt.Sprintf("%s: hooks.%s: unknown event (valid: %s)", path, name, eventList()))
			}
			continue
		}
		var groups []json.RawMessage
		if err := json.Unmarshal(byEvent[name], &groups); err != nil {
			s.problems = append(s.problems, fmt.Sprintf("%s: hooks.%s must be a list of matcher groups {matcher, hooks}", path, name))
			continue
		}
		for gi, raw := range groups {
			g, ok := s.parseGroup(fmt.Sprintf("%s: hooks.%s[%d]", path, name, gi), raw, trust.Hook{Dialect: Dialect, Source: path, Event: name})
			if ok {
				s.events[ev] = append(s.events[ev], g)
				for _, h := range g.hooks {
					s.all = append(s.all, h.id)
				}
			}
		}
	}
	return s, nil
}

// parseGroup parses one matcher group; id is its hooks' trust identity
// so far (dialect, source, event).
func (s *settings) parseGroup(where string, raw json.RawMessage, id trust.Hook) (group, bool) {
	var g struct {
		Matcher *string           `json:"matcher"`
		Hooks   []json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		s.problems = append(s.problems, fmt.Sprintf("%s: a matcher group must be {\"matcher\": string, \"hooks\": [...]}: %s; group skipped", where, fieldProblem(err)))
		return group{}, false
	}
	var m matcher
	if g.Matcher != nil {
		id.Matcher = *g.Matcher
		var err error
		if m, err = compileMatcher(*g.Matcher); err != nil {
			s.problems = append(s.problems, fmt.Sprintf("%s: %v; group skipped", where, err))
			return group{}, false
		}
	} else {
		m = matcher{all: true}
	}
	out := group{matcher: m}
	for hi, rawH := range g.Hooks {
		h, ok := s.parseHandler(fmt.Sprintf("%s.hooks[%d]", where, hi), rawH, id)
		if ok {
			h.matcher = m
			out.hooks = append(out.hooks, h)
		}
	}
	return out, len(out.hooks) > 0
}

func (s *settings) parseHandler(where string, raw json.RawMessage, id trust.Hook) (handler, bool) {
	var h struct {
		Type    string   `json:"type"`
		Command string   `json:"command"`
		Args    []string `json:"args"`
		Timeout *float64 `json:"timeout"`
		Shell   string   `json:"shell"`
		Async   bool     `json:"async"`
		Rewake  bool     `json:"asyncRewake"`
		If      string   `json:"if"`
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		s.problems = append(s.problems, fmt.Sprintf("%s: bad hook: %s; skipped", where, fieldProblem(err)))
		return handler{}, false
	}
	switch h.Type {
	case "command":
	case "prompt", "agent", "http", "mcp_tool":
		s.warnings = append(s.warnings, fmt.Sprintf("%s: hooks of type %q are not supported by cordis; skipped", where, h.Type))
		return handler{}, false
	case "":
		s.problems = append(s.problems, fmt.Sprintf("%s: the hook has no \"type\" (want \"command\")", where))
		return handler{}, false
	default:
		s.problems = append(s.problems, fmt.Sprintf("%s: unknown hook type %q (want \"command\")", where, h.Type))
		return handler{}, false
	}
	if strings.TrimSpace(h.Command) == "" {
		s.problems = append(s.problems, fmt.Sprintf("%s: the hook has no \"command\"", where))
		return handler{}, false
	}
	out := handler{command: h.Command, args: h.Args, async: h.Async || h.Rewake, rewake: h.Rewake, ifRule: strings.TrimSpace(h.If)}
	if h.Args == nil {
		switch h.Shell {
		case "", "sh":
			out.shell = []string{"sh", "-c"}
		case "bash":
			out.shell = []string{"bash", "-c"}
		default:
			s.warnings = append(s.warnings, fmt.Sprintf("%s: shell %q is not supported by cordis (sh and bash are); skipped", where, h.Shell))
			return handler{}, false
		}
	}
	if h.Timeout != nil {
		if *h.Timeout <= 0 {
			s.problems = append(s.problems, fmt.Sprintf("%s: timeout must be a positive number of seconds, got %v; the default applies", where, *h.Timeout))
		} else {
			out.timeout = time.Duration(*h.Timeout * float64(time.Second))
		}
	}
	out.id = trustIdentity(id, h.Type, h.Command, h.Args, h.Shell)
	return out, true
}

// trustIdentity completes a hook's trust identity with what it runs: the
// command line (the exec form's program and arguments, each quoted as a
// shell would need) and the interpreter, so that editing either makes the
// hook untrusted again.
func trustIdentity(id trust.Hook, typ, command string, args []string, shell string) trust.Hook {
	id.Type, id.Command = typ, command
	if args != nil {
		words := []string{shellQuote(command)}
		for _, a := range args {
			words = append(words, shellQuote(a))
		}
		id.Command = strings.Join(words, " ")
		id.Type = typ + "+exec"
	} else if shell == "bash" {
		id.Type = typ + "+bash"
	}
	return id
}

// shellQuote quotes s for sh when it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=./:,@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// fieldProblem words a decoding error of one entry: which field has the
// wrong type ("timeout" must be a number, got string).
func fieldProblem(err error) string {
	var typ *json.UnmarshalTypeError
	if !errors.As(err, &typ) || typ.Field == "" {
		return err.Error()
	}
	field := typ.Field[strings.LastIndexByte(typ.Field, '.')+1:]
	want := typ.Type.Kind().String()
	switch typ.Type.Kind() {
	case reflect.Float64:
		want = "number"
	case reflect.Slice:
		want = "list"
	case reflect.Bool:
		want = "boolean"
	case reflect.Struct, reflect.Map:
		want = "object"
	}
	return fmt.Sprintf("%q must be a %s, got %s", field, want, typ.Value)
}

func eventList() string {
	names := make([]string, len(supportedEvents))
	for i, e := range supportedEvents {
		names[i] = string(e)
	}
	return strings.Join(names, ", ")
}

// isSettingsFile reports whether path is one of Claude Code's settings
// files (settings.json, settings.local.json, a managed policy file),
// which hold more than hooks, rather than a plugin's hooks.json.
func isSettingsFile(path string) bool {
	base := filepath.Base(path)
	return base == "settings.json" || base == "settings.local.json" || strings.HasPrefix(base, "managed-settings") ||
		filepath.Base(filepath.Dir(path)) == "managed-settings.d"
}

// describeJSONError words a decoding error with the file's line and column.
func describeJSONError(path string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		line, col := position(data, syn.Offset)
		return fmt.Errorf("%s:%d:%d: malformed JSON: %v", path, line, col, syn)
	case errors.As(err, &typ):
		line, col := position(data, typ.Offset)
		field := typ.Field
		if field == "" {
			return fmt.Errorf("%s:%d:%d: the file must be a JSON object, got %s", path, line, col, typ.Value)
		}
		return fmt.Errorf("%s:%d:%d: %q must not be %s", path, line, col, field, typ.Value)
	}
	return fmt.Errorf("%s: malformed JSON: %v", path, err)
}

func position(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}
