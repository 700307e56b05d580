package permrules

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"strings"
)

// Rule is one parsed permission rule.
type Rule struct {
	// Text is the rule as written (trimmed).
	Text string
	// tools the rule applies to (Edit(...) covers Edit, Write and
	// NotebookEdit; Read(...) covers Read, Glob and Grep).
	tools []string
	// toolPrefix, when set, applies the rule to every tool whose name
	// starts with it (mcp__server and mcp__server__* name a server's tools).
	toolPrefix string
	kind       specKind
	spec       string
	// anchor is the directory a "/p" path pattern starts from: the project
	// for a project settings file, the folder of the user's settings file
	// for the user's. Without one (cordis.yml), "/p" is an absolute path.
	anchor string
}

type specKind int

const (
	specNone    specKind = iota // any call of the tool
	specCommand                 // Bash: a command pattern
	specPath                    // a path pattern
	specExact                   // Agent (Task): the subagent type
	specDomain                  // WebFetch: domain:host or domain:*.host
)

// Parse reads `Tool` or `Tool(specifier)`. anchor is the directory a path
// pattern written "/p" is relative to ("" makes "/p" absolute, as cordis.yml
// rules have always read); "//p" is absolute either way.
func Parse(text, anchor string) (Rule, error) {
	t := strings.TrimSpace(text)
	name, spec, hasSpec := strings.Cut(t, "(")
	name = strings.TrimSpace(name)
	r := Rule{Text: t, tools: []string{name}, anchor: anchor}
	if name == "Agent" || name == "Task" {
		// Claude Code renamed Task to Agent (2.1.63) and accepts both names.
		r.tools = []string{"Agent", "Task"}
	}
	if server, ok := mcpServerRule(name); ok && !hasSpec {
		r.tools, r.toolPrefix = nil, server
		return r, nil
	}
	if name == "" || strings.ContainsAny(name, " \t)*") {
		return Rule{}, fmt.Errorf("rule %q: want Tool or Tool(specifier)", text)
	}
	if !hasSpec {
		return r, nil
	}
	if !strings.HasSuffix(spec, ")") {
		return Rule{}, fmt.Errorf("rule %q: the specifier must end with )", text)
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
		r.kind, r.tools = specPath, []string{"Edit", "Write", "NotebookEdit"}
	case "Write", "Glob", "Grep", "NotebookEdit":
		r.kind = specPath
	case "Agent", "Task":
		r.kind = specExact
	case "WebFetch":
		host, ok := strings.CutPrefix(spec, "domain:")
		if !ok || strings.TrimSpace(host) == "" {
			return Rule{}, fmt.Errorf("rule %q: WebFetch takes domain:host, domain:*.host or *", text)
		}
		r.kind, r.spec = specDomain, strings.ToLower(strings.TrimSpace(host))
	default:
		return Rule{}, fmt.Errorf("rule %q: %s takes no specifier (specifiers exist for Bash, Read, Edit, Write, NotebookEdit, Glob, Grep, Agent (or Task) and WebFetch)", text, name)
	}
	if r.kind == specPath {
		if _, err := path.Match(strings.ReplaceAll(spec, "**", "*"), ""); err != nil {
			return Rule{}, fmt.Errorf("rule %q: bad path pattern: %v", text, err)
		}
	}
	return r, nil
}

// mcpServerRule recognizes Claude Code's rules for every tool of one MCP
// server, mcp__server and mcp__server__*, and returns the tool name prefix
// they stand for.
func mcpServerRule(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return "", false
	}
	if server, ok := strings.CutSuffix(rest, "__*"); ok {
		rest = server
	} else if strings.Contains(rest, "__") {
		return "", false // one tool: mcp__server__tool
	}
	if rest == "" || strings.ContainsAny(rest, " \t()*") {
		return "", false
	}
	return "mcp__" + rest + "__", true
}

// appliesTo reports whether the rule concerns calls of tool.
func (r Rule) appliesTo(tool string) bool {
	if r.toolPrefix != "" {
		return strings.HasPrefix(tool, r.toolPrefix)
	}
	for _, t := range r.tools {
		if t == tool {
			return true
		}
	}
	return false
}

// exactCommand reports whether the rule is a Bash rule naming one whole
// command, with no wildcard.
func (r Rule) exactCommand() bool {
	return r.kind == specCommand && !strings.Contains(r.spec, "*")
}

// Call is what rules match against, read once per tool call.
type Call struct {
	Tool string
	Cwd  string
	// Command is a Bash call's command, trimmed; Commands are its parts,
	// split at &&, ||, ;, |, & and newlines.
	Command  string
	Commands []string
	// Path is a file tool's path, absolute and slash-separated.
	Path string
	// Exact is a Task call's subagent_type.
	Exact string
	// Host is a WebFetch call's host name, lower case, without the port.
	Host string
}

// NewCall reads the fields rules match from a tool call's input.
func NewCall(tool string, input json.RawMessage, cwd string) Call {
	c := Call{Tool: tool, Cwd: cwd}
	var fields struct {
		Command      string `json:"command"`
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
		Path         string `json:"path"`
		SubagentType string `json:"subagent_type"`
		URL          string `json:"url"`
	}
	_ = json.Unmarshal(input, &fields)
	switch tool {
	case "Bash":
		c.Command = strings.TrimSpace(fields.Command)
		c.Commands = splitCommand(c.Command)
		for i, part := range c.Commands {
			c.Commands[i] = unquoteProgram(part)
		}
	case "Read", "Edit", "Write":
		c.Path = absPath(fields.FilePath, cwd)
	case "NotebookEdit":
		c.Path = absPath(fields.NotebookPath, cwd)
	case "Glob", "Grep":
		c.Path = absPath(fields.Path, cwd)
	case "Agent", "Task":
		c.Exact = fields.SubagentType
	case "WebFetch":
		c.Host = urlHost(fields.URL)
	}
	return c
}

// urlHost is the lower-case host name of an http(s) URL without its port,
// or "" when raw is not one (then no domain rule matches).
func urlHost(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return ""
	}
	return strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
}

// matchDomain matches a host against domain:host (that host only) or
// domain:*.host (its subdomains, as in Claude Code's rules).
func matchDomain(spec, host string) bool {
	if host == "" {
		return false
	}
	if parent, ok := strings.CutPrefix(spec, "*."); ok {
		return strings.HasSuffix(host, "."+parent)
	}
	return host == spec
}

// Matcher matches rules against calls; Home expands "~/" in path patterns
// ("" leaves such patterns unmatched).
type Matcher struct {
	Home string
}

// Restricts returns the first of rules (deny or ask rules) that matches
// the call. A Bash rule matches when it matches the whole command or any
// part of it: finding more to deny is the safe side.
func (m Matcher) Restricts(rules []Rule, c Call) (Rule, bool) {
	for _, r := range rules {
		if !r.appliesTo(c.Tool) {
			continue
		}
		if m.matches(r, c, c.Command) || c.Tool == "Bash" && m.matches(r, c, unquoteProgram(c.Command)) {
			return r, true
		}
		if c.Tool == "Bash" {
			for _, part := range c.Commands {
				if m.matches(r, c, part) {
					return r, true
				}
			}
		}
	}
	return Rule{}, false
}

// Permits returns an allow rule that covers the call. A Bash command is
// covered by an exact rule naming it whole, or when every part of it is
// covered by some rule (so Bash(git status:*) does not allow
// `git status && rm -rf /`); a part that substitutes commands ($(...),
// backticks) or redirects (<, >) is covered only by a rule naming it
// exactly, since a prefix says nothing about what those run or write.
func (m Matcher) Permits(rules []Rule, c Call) (Rule, bool) {
	var applicable []Rule
	for _, r := range rules {
		if r.appliesTo(c.Tool) {
			applicable = append(applicable, r)
		}
	}
	if c.Tool != "Bash" {
		for _, r := range applicable {
			if m.matches(r, c, c.Command) {
				return r, true
			}
		}
		return Rule{}, false
	}
	for _, r := range applicable {
		if r.exactCommand() && (r.spec == c.Command || r.spec == unquoteProgram(c.Command)) {
			return r, true
		}
	}
	var first Rule
	for i, part := range c.Commands {
		found := false
		for _, r := range applicable {
			if r.kind == specCommand && !r.exactCommand() && substitutesOrRedirects(part) {
				continue
			}
			if m.matches(r, c, part) {
				found = true
				if i == 0 {
					first = r
				}
				break
			}
		}
		if !found {
			return Rule{}, false
		}
	}
	return first, len(c.Commands) > 0
}

// unquoteProgram drops the quotes around a command's first word when they
// only guard plain text (`"/plugin/bin/run.sh" args`, as plugins and
// models write paths), so that a rule naming the program
// (Bash(/plugin/bin/run.sh:*)) matches it as Claude Code matches it. A
// quoted word with blanks, expansions, globs or other quotes stays as it
// is: dropping those quotes would change what the shell runs.
func unquoteProgram(command string) string {
	if len(command) < 2 || command[0] != '"' && command[0] != '\'' {
		return command
	}
	end := strings.IndexByte(command[1:], command[0])
	if end < 0 {
		return command
	}
	word := command[1 : 1+end]
	rest := command[2+end:]
	if word == "" || strings.ContainsAny(word, " \t\n$`\\\"'*?[]{}()<>|&;#~") || rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return command
	}
	return word + rest
}

func substitutesOrRedirects(command string) bool {
	return strings.ContainsAny(command, "`<>") || strings.Contains(command, "$(")
}

func (m Matcher) matches(r Rule, c Call, command string) bool {
	switch r.kind {
	case specNone:
		return true
	case specCommand:
		return matchCommand(r.spec, command)
	case specExact:
		return r.spec == c.Exact
	case specDomain:
		return matchDomain(r.spec, c.Host)
	case specPath:
		return c.Path != "" && m.matchPath(r, c.Path, c.Cwd)
	}
	return false
}

// matchCommand matches a Bash specifier. `prefix:*` (Claude Code's older
// spelling) and `prefix *` match the prefix as a whole word: the command
// itself, or the command followed by a space and anything (so
// Bash(npm run test:*) does not match `npm run test-all`). A `*` elsewhere
// matches any text; anything else must equal the command.
func matchCommand(spec, command string) bool {
	prefix, ok := strings.CutSuffix(spec, ":*")
	if !ok {
		prefix, ok = strings.CutSuffix(spec, " *")
	}
	switch {
	case ok && !strings.Contains(prefix, "*"):
		rest, found := strings.CutPrefix(command, prefix)
		return found && (rest == "" || rest[0] == ' ' || rest[0] == '\t')
	case ok:
		return wildcard(prefix, command) || wildcard(prefix+" *", command)
	case !strings.Contains(spec, "*"):
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

// matchPath matches an absolute slash path against a rule's pattern, in
// Claude Code's gitignore-style syntax: "~/x" is under the home directory,
// "//x" is absolute, "/x" starts at the rule's anchor (absolute without
// one), and anything else is relative to the session's working directory.
// A pattern with no "/" (.env, *.pem) matches that name at any depth, as in
// .gitignore. "**" spans directories; "*", "?" and [...] match within one
// name; a pattern naming a directory also matches everything under it.
func (m Matcher) matchPath(r Rule, p, cwd string) bool {
	pattern := r.spec
	switch {
	case !strings.Contains(pattern, "/"):
		pattern = "**/" + pattern
		return globMatch(strings.Split(pattern, "/"), strings.Split(strings.TrimPrefix(p, "/"), "/"))
	case strings.HasPrefix(pattern, "~/"):
		if m.Home == "" {
			return false
		}
		pattern = filepath.ToSlash(m.Home) + pattern[1:]
	case strings.HasPrefix(pattern, "/") && !strings.HasPrefix(pattern, "//") && r.anchor != "":
		pattern = filepath.ToSlash(r.anchor) + pattern
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
