package permrules

import (
	"encoding/json"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Scope is what an "Always allow" (or "Always reject") answer to one call
// covers: the rule it creates, and the words that name it in the
// permission option ("`npm run test:*`", "edits to `src/main.go`").
type Scope struct {
	Rule  string
	Label string
}

// ScopeOf returns the scope an "always" answer to a call would have, the
// way Claude Code scopes its "don't ask again" answers: a command prefix
// rule for Bash (the exact command when no safe prefix exists), the file
// for Edit, Write and NotebookEdit (as an Edit(...) rule, which covers
// them all), the host for WebFetch (WebFetch(domain:host)), and the tool
// for an MCP tool. cwd is the project: path rules are written relative to
// it, as in its settings file. ok is false when the call has
// no scope narrow enough to offer (a multi-line command, any other tool);
// then only one-off answers are offered.
func ScopeOf(tool string, input json.RawMessage, cwd string) (Scope, bool) {
	var s Scope
	var ok bool
	switch {
	case tool == "Bash":
		var in struct {
			Command string `json:"command"`
		}
		_ = json.Unmarshal(input, &in)
		s, ok = bashScope(strings.TrimSpace(in.Command))
	case tool == "Edit" || tool == "Write":
		var in struct {
			FilePath string `json:"file_path"`
		}
		_ = json.Unmarshal(input, &in)
		s, ok = editScope(in.FilePath, cwd)
	case tool == "NotebookEdit":
		var in struct {
			NotebookPath string `json:"notebook_path"`
		}
		_ = json.Unmarshal(input, &in)
		s, ok = editScope(in.NotebookPath, cwd)
	case tool == "WebFetch":
		var in struct {
			URL string `json:"url"`
		}
		_ = json.Unmarshal(input, &in)
		if host := urlHost(in.URL); host != "" && !strings.ContainsAny(host, "*()") {
			s, ok = Scope{Rule: "WebFetch(domain:" + host + ")", Label: "fetches from " + quote(host)}, true
		}
	case strings.HasPrefix(tool, "mcp__"):
		s, ok = Scope{Rule: tool, Label: quote(tool)}, true
	}
	if !ok {
		return Scope{}, false
	}
	// The rule must cover the very call it was made from; anything odd
	// enough to defeat that (spacing, quoting) gets no always option.
	r, err := Parse(s.Rule, cwd)
	if err != nil {
		return Scope{}, false
	}
	if _, covered := (Matcher{}).Permits([]Rule{r}, NewCall(tool, input, cwd)); !covered {
		return Scope{}, false
	}
	return s, true
}

// bashScope is Bash(prefix:*) for a simple command with a safe prefix, else
// Bash(command) for the exact command. A multi-line command, or one with a
// * that a rule would read as a wildcard, has no scope.
func bashScope(cmd string) (Scope, bool) {
	if cmd == "" || strings.ContainsAny(cmd, "\r\n\x00") {
		return Scope{}, false
	}
	if prefix, ok := commandPrefix(cmd); ok {
		return Scope{Rule: "Bash(" + prefix + ":*)", Label: quote(prefix + ":*")}, true
	}
	if strings.Contains(cmd, "*") {
		return Scope{}, false
	}
	label := "this exact command"
	if utf8.RuneCountInString(cmd) <= 60 && !strings.Contains(cmd, "`") {
		label = quote(cmd)
	}
	return Scope{Rule: "Bash(" + cmd + ")", Label: label}, true
}

// commandPrefix derives the prefix of a simple command, as Claude Code
// does for its Bash(prefix:*) suggestions: the program and its subcommand
// (`git diff HEAD~1` → `git diff`, `npm run lint -- x` → `npm run lint`,
// `pytest a/b.py` → `pytest`). It is deliberately conservative, since the
// rule allows the prefix with any arguments: there is no prefix for a
// compound command (;, &, |, newlines), one that substitutes commands or
// redirects ($(...), backticks, <, >), one starting with a variable
// assignment, a program that runs other programs or code from its
// arguments (shells, sudo, env, xargs, interpreters, find, sed, awk) or
// destroys or overwrites what its arguments name (rm, cp, mv, dd, chmod,
// ...), and when the prefix would be the whole command (then the exact
// command is the rule, as Claude Code does for `git push` or `npm test`).
func commandPrefix(cmd string) (string, bool) {
	if strings.ContainsAny(cmd, ";&|`<>()") || strings.Contains(cmd, "$(") {
		return "", false
	}
	words := strings.Fields(cmd)
	if len(words) < 2 || !programWord.MatchString(words[0]) {
		return "", false
	}
	program := path.Base(words[0])
	if exactOnly[program] {
		return "", false
	}
	n := 1
	if !takesNoSubcommand[program] {
		limit := 2
		for n < len(words) && n < limit && subcommandWord.MatchString(words[n]) {
			if n == 1 && (words[1] == "run" || words[1] == "run-script") {
				limit = 3 // npm run <script>
			}
			n++
		}
	}
	if n == len(words) {
		return "", false
	}
	return strings.Join(words[:n], " "), true
}

var (
	programWord    = regexp.MustCompile(`^[A-Za-z0-9_./+-]+$`)
	subcommandWord = regexp.MustCompile(`^[a-z][a-z0-9_:-]*$`)
)

// exactOnly are programs a prefix rule would let run anything, or
// destroy or overwrite whatever their arguments name: "always" covers only
// the exact command for them.
var exactOnly = setOf(
	"sh", "bash", "zsh", "fish", "dash", "ksh", "csh", "tcsh",
	"env", "sudo", "doas", "su", "eval", "exec", "source", ".", "xargs",
	"nohup", "time", "timeout", "nice", "ionice", "stdbuf", "command", "builtin", "noglob",
	"watch", "setsid", "chroot", "nsenter", "unshare",
	"python", "python2", "python3", "node", "deno", "bun", "perl", "ruby", "php", "lua", "osascript",
	"find", "sed", "awk", "gawk",
	"rm", "rmdir", "dd", "mkfs", "shred", "truncate", "chmod", "chown", "chgrp",
	"cp", "mv", "ln", "tee", "install", "rsync", "scp", "ssh", "curl", "wget",
	"kill", "pkill", "killall",
)

// takesNoSubcommand are programs whose first argument is an operand, so
// their prefix is the program alone (`cat foo.txt` → `cat`).
var takesNoSubcommand = setOf(
	"cat", "cd", "ls", "echo", "printf", "touch", "mkdir", "grep", "egrep", "fgrep", "rg", "fd",
	"head", "tail", "wc", "sort", "uniq", "cut", "tr", "diff", "cmp", "stat", "du", "df", "file",
	"which", "type", "less", "more", "basename", "dirname", "realpath", "readlink", "pwd", "sleep",
	"true", "false", "test", "jq", "yq", "tree", "date", "whoami", "uname", "hostname", "id", "ps",
	"pytest",
)

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// editScope is the file itself, as an Edit rule anchored at the project
// ("/src/a.go") or absolute ("//etc/hosts") when it lies outside it.
func editScope(filePath, cwd string) (Scope, bool) {
	p := absPath(filePath, cwd)
	if p == "" || cwd == "" {
		return Scope{}, false
	}
	shown := p
	pattern := "/" + p // "//abs": absolute in Claude Code's syntax
	if rel, err := filepath.Rel(cwd, filepath.FromSlash(p)); err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, "../") {
		shown = filepath.ToSlash(rel)
		pattern = "/" + shown
	}
	return Scope{Rule: "Edit(" + escapeGlob(pattern) + ")", Label: "edits to " + quote(shown)}, true
}

// escapeGlob makes the characters a path pattern treats specially match
// themselves.
func escapeGlob(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// quote puts s in Markdown code backticks (the editor shows option names
// as they are; backticks read as "exactly this" either way).
func quote(s string) string { return "`" + s + "`" }
