package claude

import (
	"cmp"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cordis-agent/cordis/hooks"
)

// Claude Code's rules for running a command: its timeout, the exec
// form's placeholder, and the `if` filter.

// timeoutFor is a command's timeout: its own, or the event's default.
func timeoutFor(ev hooks.Event, own time.Duration) time.Duration {
	switch ev {
	case hooks.SessionEnd:
		t := SessionEndTimeout
		if ms, err := strconv.Atoi(os.Getenv("CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS")); err == nil && ms > 0 {
			t = time.Duration(ms) * time.Millisecond
		}
		if own > 0 {
			t = own
		}
		return min(t, SessionEndMaxTimeout)
	case hooks.UserPromptSubmit:
		if own > 0 {
			return own
		}
		return UserPromptSubmitTimeout
	}
	if own > 0 {
		return own
	}
	return DefaultTimeout
}

// expandProjectDir substitutes the ${CLAUDE_PROJECT_DIR} placeholder in the
// exec form (in the shell form the shell expands the variable itself).
func expandProjectDir(s, dir string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "${CLAUDE_PROJECT_DIR}", dir), "$CLAUDE_PROJECT_DIR", dir)
}

// ifMatches evaluates a hook's `if` permission-rule filter on a tool
// event: "Tool" or "Tool(spec)". For Bash the spec is matched against the
// command ("prefix:*" is a prefix, otherwise '*' matches anything); for
// file tools against tool_input.file_path (or path), relative specs taken
// from the session cwd, '**' matching across directories. A rule cordis
// cannot evaluate (or an event without a tool) lets the hook run: a
// governance hook is not skipped on a guess.
func ifMatches(rule string, in *hooks.Input, home string) bool {
	if in.ToolName == "" {
		return true
	}
	name, spec, hasSpec := strings.Cut(rule, "(")
	name = strings.TrimSpace(name)
	if hasSpec {
		if !strings.HasSuffix(spec, ")") {
			return true
		}
		spec = strings.TrimSuffix(spec, ")")
	}
	if name != in.ToolName {
		return false
	}
	if !hasSpec || spec == "" || spec == "*" {
		return true
	}
	fields := map[string]any{}
	_ = jsonUnmarshal(in.ToolInput, &fields)
	str := func(k string) string { s, _ := fields[k].(string); return s }
	switch in.ToolName {
	case "Bash":
		cmd := strings.TrimSpace(str("command"))
		if prefix, ok := strings.CutSuffix(spec, ":*"); ok {
			return strings.HasPrefix(cmd, prefix)
		}
		return globMatch(spec, cmd, false)
	case "Read", "Write", "Edit", "NotebookEdit", "Glob", "Grep":
		p := cmp.Or(str("file_path"), str("path"), str("notebook_path"))
		if p == "" {
			return true
		}
		switch {
		case strings.HasPrefix(spec, "//"):
			spec = spec[1:]
		case strings.HasPrefix(spec, "~/"):
			spec = filepath.Join(home, spec[2:])
		default: // "./x", "x" and "/x" are relative to the project
			spec = filepath.Join(in.Cwd, spec)
		}
		return globMatch(spec, p, true)
	}
	return true
}

// globMatch matches s against a pattern where '*' matches any run of
// characters (not '/' when paths is set) and '**' any run including '/'.
func globMatch(pattern, s string, paths bool) bool {
	var re strings.Builder
	re.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '*' && i+1 < len(pattern) && pattern[i+1] == '*':
			re.WriteString(".*")
			i++
			if i+1 < len(pattern) && pattern[i+1] == '/' {
				re.WriteString("/?")
				i++
			}
		case c == '*' && paths:
			re.WriteString("[^/]*")
		case c == '*':
			re.WriteString(".*")
		case c == '?':
			re.WriteString(".")
		default:
			re.WriteString(regexpQuote(string(c)))
		}
	}
	re.WriteString("$")
	m, err := compileRegexp(re.String())
	if err != nil {
		return true
	}
	return m.MatchString(s)
}
