package builtin

import (
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/cordis-agent/cordis/hooks"
)

// PermissionRulesConfig configures permission-rules.
type PermissionRulesConfig struct {
	Allow []string `yaml:"allow,omitempty" json:"allow,omitempty" jsonschema:"description=Calls that run without asking. A rule is a tool name (Read) or Tool(specifier) as in Claude Code: Bash(git status) / Bash(git push:*) / Edit(src/**) / Read(~/.ssh/**) / Task(explorer)"`
	Ask   []string `yaml:"ask,omitempty" json:"ask,omitempty" jsonschema:"description=Calls the editor is always asked about (even in bypassPermissions mode)"`
	Deny  []string `yaml:"deny,omitempty" json:"deny,omitempty" jsonschema:"description=Calls that never run; deny wins over ask and allow"`
}

// rule is one parsed permission rule.
type rule struct {
	text string
	// tools the rule applies to (Edit(...) covers Edit and Write; Read(...)
	// covers Read, Glob and Grep).
	tools []string
	kind  specKind
	spec  string
}

type specKind int

const (
	specNone    specKind = iota // any call of the tool
	specCommand                 // Bash: a command pattern
	specPath                    // a path pattern
	specExact                   // Task: the subagent type
)

// parseRule reads `Tool` or `Tool(specifier)`.
func parseRule(text string) (rule, error) {
	t := strings.TrimSpace(text)
	name, spec, hasSpec := strings.Cut(t, "(")
	name = strings.TrimSpace(name)
	if name == "" || strings.ContainsAny(name, " \t)*") {
		return rule{}, fmt.Errorf("rule %q: want Tool or Tool(specifier)", text)
	}
	r := rule{text: t, tools: []string{name}}
	if !hasSpec {
		return r, nil
	}
	if !strings.HasSuffix(spec, ")") {
		return rule{}, fmt.Errorf("rule %q: the specifier must end with )", text)
	}
	spec = strings.TrimSpace(strings.TrimSuffix(spec, ")"))
	if spec == "" || spec == "*" {
		return r, nil // Bash() and Bash(*) mean any call
	}
	r.spec = spec
	switch name {
	case "Bash":
		r.kind = specCommand
	case "Read":
		r.kind, r.tools = specPath, []string{"Read", "Glob", "Grep"}
	case "Edit":
		r.kind, r.tools = specPath, []string{"Edit", "Write"}
	case "Write", "Glob", "Grep":
		r.kind = specPath
	case "Task":
		r.kind = specExact
	default:
		return rule{}, fmt.Errorf("rule %q: %s takes no specifier (specifiers exist for Bash, Read, Edit, Write, Glob, Grep and Task)", text, name)
	}
	if r.kind == specPath {
		if _, err := path.Match(strings.ReplaceAll(spec, "**", "*"), ""); err != nil {
			return rule{}, fmt.Errorf("rule %q: bad path pattern: %v", text, err)
		}
	}
	return r, nil
}

// ruleSet is the parsed allow, ask and deny lists.
type ruleSet struct {
	allow, ask, deny []rule
	home             string
}

func permissionRulesHooks(cfg PermissionRulesConfig, home string) ([]registration, error) {
	rs := &ruleSet{home: home}
	for _, l := range []struct {
		name  string
		texts []string
		out   *[]rule
	}{{"allow", cfg.Allow, &rs.allow}, {"ask", cfg.Ask, &rs.ask}, {"deny", cfg.Deny, &rs.deny}} {
		for _, t := range l.texts {
			r, err := parseRule(t)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", l.name, err)
			}
			*l.out = append(*l.out, r)
		}
	}
	return []registration{{event: hooks.PreToolUse, priority: 10, run: rs.decide}}, nil
}

// callFacts is what rules match against, read once per call.
type callFacts struct {
	tool     string
	cwd      string
	command  string   // Bash
	commands []string // Bash: the command split at &&, ||, ;, | and newlines
	path     string   // file tools: the absolute path
	exact    string   // Task: subagent_type
}

func (rs *ruleSet) facts(in *hooks.Input) callFacts {
	f := callFacts{tool: in.ToolName, cwd: in.Cwd}
	var fields struct {
		Command      string `json:"command"`
		FilePath     string `json:"file_path"`
		Path         string `json:"path"`
		SubagentType string `json:"subagent_type"`
	}
	_ = json.Unmarshal(in.ToolInput, &fields)
	switch in.ToolName {
	case "Bash":
		f.command = strings.TrimSpace(fields.Command)
		f.commands = splitCommand(f.command)
	case "Read", "Edit", "Write":
		f.path = absPath(fields.FilePath, in.Cwd)
	case "Glob", "Grep":
		f.path = absPath(fields.Path, in.Cwd)
	case "Task":
		f.exact = fields.SubagentType
	}
	return f
}

// decide applies the rules: any matching deny rule denies, else any
// matching ask rule asks, else allow rules allow (a Bash command only when
// every part of it is allowed).
func (rs *ruleSet) decide(in *hooks.Input) (hooks.Decision, error) {
	if len(rs.allow)+len(rs.ask)+len(rs.deny) == 0 {
		return hooks.Decision{}, nil
	}
	f := rs.facts(in)
	if r, ok := rs.firstMatch(rs.deny, f, false); ok {
		return hooks.Decision{Permission: hooks.Deny, Reason: fmt.Sprintf("the permission rule deny %s forbids this call (hooks/builtin permissionRules)", r.text)}, nil
	}
	if r, ok := rs.firstMatch(rs.ask, f, false); ok {
		return hooks.Decision{Permission: hooks.Ask, Reason: fmt.Sprintf("the permission rule ask %s requires confirmation", r.text)}, nil
	}
	if r, ok := rs.firstMatch(rs.allow, f, true); ok {
		return hooks.Decision{Permission: hooks.Allow, Reason: fmt.Sprintf("allowed by the permission rule %s", r.text)}, nil
	}
	return hooks.Decision{}, nil
}

// firstMatch finds a rule that matches the call. For Bash, a deny or ask
// rule matches when it matches the whole command or any part of it; with
// all set, the call matches only when every part is matched by some rule
// (so Bash(git status:*) does not allow `git status && rm -rf /`).
func (rs *ruleSet) firstMatch(rules []rule, f callFacts, all bool) (rule, bool) {
	var applicable []rule
	for _, r := range rules {
		for _, t := range r.tools {
			if t == f.tool {
				applicable = append(applicable, r)
				break
			}
		}
	}
	if len(applicable) == 0 {
		return rule{}, false
	}
	if f.tool != "Bash" {
		for _, r := range applicable {
			if rs.matches(r, f, f.command) {
				return r, true
			}
		}
		return rule{}, false
	}
	if !all {
		for _, r := range applicable {
			if rs.matches(r, f, f.command) {
				return r, true
			}
			for _, c := range f.commands {
				if rs.matches(r, f, c) {
					return r, true
				}
			}
		}
		return rule{}, false
	}
	var first rule
	for i, c := range f.commands {
		found := false
		for _, r := range applicable {
			if rs.matches(r, f, c) {
				found = true
				if i == 0 {
					first = r
				}
				break
			}
		}
		if !found {
			return rule{}, false
		}
	}
	return first, len(f.commands) > 0
}

func (rs *ruleSet) matches(r rule, f callFacts, command string) bool {
	switch r.kind {
	case specNone:
		return true
	case specCommand:
		return matchCommand(r.spec, command)
	case specExact:
		return r.spec == f.exact
	case specPath:
		return f.path != "" && rs.matchPath(r.spec, f.path, f.cwd)
	}
	return false
}

// matchCommand matches a Bash specifier: `prefix:*` matches commands that
// start with prefix; a `*` elsewhere matches any text; anything else must
// equal the command.
func matchCommand(spec, command string) bool {
	if prefix, ok := strings.CutSuffix(spec, ":*"); ok {
		return strings.HasPrefix(command, prefix)
	}
	if !strings.Contains(spec, "*") {
		return spec == command
	}
	return wildcard(spec, command)
}

// wildcard matches s against a pattern whose only special character is *.
func wildcard(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for i, p := range parts[1:] {
		if i == len(parts)-2 {
			return strings.HasSuffix(s, p)
		}
		j := strings.Index(s, p)
		if j < 0 {
			return false
		}
		s = s[j+len(p):]
	}
	return true
}

// splitCommand cuts a shell command at &&, ||, ;, |, & and newlines. It
// ignores quoting, so it may cut more than the shell would: for deny that
// only finds more to deny, for allow more that must be allowed.
func splitCommand(cmd string) []string {
	f := strings.FieldsFunc(cmd, func(r rune) bool {
		return r == ';' || r == '|' || r == '&' || r == '\n'
	})
	out := f[:0]
	for _, c := range f {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}

func absPath(p, cwd string) string {
	if p == "" {
		return ""
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	return filepath.ToSlash(filepath.Clean(p))
}

// matchPath matches an absolute slash path against a rule's pattern:
// "~/x" is under the home directory, "/x" (or "//x") is absolute, and
// anything else is relative to the session's working directory. A pattern
// with no "/" (.env, *.pem) matches that name at any depth, as in
// .gitignore. "**" spans directories; "*", "?" and [...] match within one
// name; a pattern naming a directory also matches everything under it.
func (rs *ruleSet) matchPath(pattern, p, cwd string) bool {
	switch {
	case !strings.Contains(pattern, "/"):
		pattern = "**/" + pattern
		return globMatch(strings.Split(pattern, "/"), strings.Split(strings.TrimPrefix(p, "/"), "/"))
	case strings.HasPrefix(pattern, "~/") && rs.home != "":
		pattern = filepath.ToSlash(rs.home) + pattern[1:]
	case strings.HasPrefix(pattern, "/"):
		pattern = "/" + strings.TrimLeft(pattern, "/")
	default:
		pattern = filepath.ToSlash(cwd) + "/" + strings.TrimPrefix(pattern, "./")
	}
	pat := strings.Split(strings.Trim(path.Clean(pattern), "/"), "/")
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	if globMatch(pat, segs) {
		return true
	}
	// A directory pattern covers what is inside it.
	return globMatch(append(pat, "**"), segs)
}

// globMatch matches path segments against pattern segments ("**" spans
// any number of segments, zero included).
func globMatch(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			rest := pat[1:]
			for i := 0; i <= len(segs); i++ {
				if globMatch(rest, segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], segs[0]); !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}
