package claude

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/cordis-agent/cordis/hooks"
)

// matcher is a compiled Claude Code matcher (CC-REF "Matcher patterns").
type matcher struct {
	all   bool
	names []string       // exact names
	re    *regexp.Regexp // unanchored
}

// compileMatcher compiles a matcher string: "*", "" (or an absent
// matcher) match everything; a string of only letters, digits, '_', '-',
// spaces, ',' and '|' is a list of exact names separated by '|' or ',';
// anything else is an unanchored regular expression.
func compileMatcher(s string) (matcher, error) {
	if s == "" || s == "*" {
		return matcher{all: true}, nil
	}
	if isExactList(s) {
		var names []string
		for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == '|' || r == ',' }) {
			if n := strings.TrimSpace(part); n != "" {
				names = append(names, n)
			}
		}
		return matcher{names: names}, nil
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return matcher{}, fmt.Errorf("matcher %q is not a valid regular expression: %v", s, err)
	}
	return matcher{re: re}, nil
}

func isExactList(s string) bool {
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case r == '_', r == '-', r == ' ', r == ',', r == '|':
		default:
			return false
		}
	}
	return true
}

// match tests v; the subagent tool matches under both its names, since
// Claude Code renamed Task to Agent and still accepts Task in matchers.
func (m matcher) match(v string) bool {
	if v == "Agent" && m.matchOne("Task") {
		return true
	}
	return m.matchOne(v)
}

func (m matcher) matchOne(v string) bool {
	switch {
	case m.all:
		return true
	case m.re != nil:
		return m.re.MatchString(v)
	}
	for _, n := range m.names {
		if n == v {
			return true
		}
	}
	return false
}

// matchValue is what an event's matcher is tested against; ok is false
// for events whose matchers Claude ignores (UserPromptSubmit, Stop).
func matchValue(in *hooks.Input) (v string, ok bool) {
	switch in.Event {
	case hooks.PreToolUse, hooks.PermissionRequest, hooks.PostToolUse, hooks.PostToolUseFailure:
		return in.ToolName, true
	case hooks.SessionStart:
		return in.Source, true
	case hooks.SessionEnd:
		return in.Reason, true
	case hooks.Notification:
		return in.NotificationType, true
	case hooks.SubagentStart, hooks.SubagentStop:
		return in.AgentType, true
	case hooks.PreCompact, hooks.PostCompact:
		return in.Trigger, true
	}
	return "", false
}

var (
	compileRegexp = regexp.Compile
	regexpQuote   = regexp.QuoteMeta
)
