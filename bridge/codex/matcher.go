package codex

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// isExactMatcher reports whether raw only uses the characters that make a
// matcher an exact name list in Codex: letters, digits, '_' and the '|'
// separator. Anything else (a hyphen, a comma, '.', '^', ...) makes it a
// regular expression.
func isExactMatcher(raw string) bool {
	for _, c := range []byte(raw) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '|') {
			return false
		}
	}
	return raw != ""
}

// matcher decides which values (tool names, a SessionStart source, ...) a
// matcher group applies to, with Codex's rules: "", "*" or no matcher
// match everything; a matcher of only [A-Za-z0-9_|] is an exact list split
// on '|'; anything else is an unanchored regular expression. Codex uses
// Rust's regex crate; Go's RE2 syntax is the same for the patterns hook
// configs use (alternation, classes, anchors, repetition).
type matcher struct {
	raw   string
	all   bool
	exact []string
	re    *regexp.Regexp
}

func compileMatcher(raw string) (*matcher, error) {
	m := &matcher{raw: raw}
	switch {
	case raw == "" || raw == "*":
		m.all = true
	case isExactMatcher(raw):
		for _, name := range strings.Split(raw, "|") {
			if name != "" {
				m.exact = append(m.exact, name)
			}
		}
	default:
		re, err := regexp.Compile(raw)
		if err != nil {
			return nil, fmt.Errorf("invalid matcher %q: %v", raw, err)
		}
		m.re = re
	}
	return m, nil
}

// match reports whether any of the candidate names matches. A tool is
// matched under its Codex name and its aliases (apply_patch also answers
// to Edit and Write).
func (m *matcher) match(candidates ...string) bool {
	if m.all {
		return true
	}
	for _, c := range candidates {
		if m.re != nil && m.re.MatchString(c) || m.re == nil && slices.Contains(m.exact, c) {
			return true
		}
	}
	return false
}
