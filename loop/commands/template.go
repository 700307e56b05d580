package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/cordis-agent/cordis/internal/confine"
)

// Expander expands prompt-command templates. Everything it substitutes is
// found in the template's own text, in one pass: $ARGUMENTS and $1..$9,
// file references (@{path}, and Claude Code's @path) and shell snippets
// (!{cmd}, and Claude Code's !`cmd`). Text that an argument, a file or a
// command's output brings in is inserted as it is and never scanned
// again, so neither an argument nor a repository file can add a file
// reference or a shell command. An argument's own @{path} is not followed
// either: arguments are the user's words, sent as typed (an editor attaches
// files as resources). A reference in the template may take its path from
// an argument (@{$1}: the file the user names, confined like any other).
// Inside a snippet an argument is substituted shell-quoted, as one word of
// data, so it can never become shell syntax.
type Expander struct {
	// Resolve confines a path to the session's directories and returns
	// its absolute form.
	Resolve func(path string) (string, error)
	// Roots are the session's directories. A file Resolve accepted is
	// opened through them (internal/confine), so a symlink swapped in
	// after the check cannot lead outside. Empty, no file is read (fail
	// closed).
	Roots []string
	// Approve governs every shell command of one expansion before any of
	// them runs. It returns the commands to run, in order (a hook may have
	// rewritten one), or an error when any of them may not run. nil denies
	// (fail closed).
	Approve func(ctx context.Context, commands []string) ([]string, error)
	// Shell runs one approved command and returns its (capped) output.
	Shell func(ctx context.Context, command string) (string, error)
	// MaxFileBytes caps an included file (default 100 KiB).
	MaxFileBytes int
	// ArgNames are the `arguments` frontmatter: names for the words of
	// the arguments, in order ($name).
	ArgNames []string
}

// ErrShellDenied is returned when the template's shell commands may not
// run; errors from Approve wrap it.
var ErrShellDenied = errors.New("the command's shell commands were not approved, so it did not run")

var (
	// argument finds Claude Code's argument placeholders: $ARGUMENTS[N]
	// (1), $ARGUMENTS, $N (2; 0-based) and $name (3; only names the
	// `arguments` frontmatter declares count, the others stay text).
	argument = lazyRegexp(`\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS|\$(\d+)|\$([A-Za-z_][A-Za-z0-9_-]*)`)
	// templatePart finds, leftmost first, what a template expands: a
	// fenced ```! block (1), a shell snippet (2, 3), a file reference (4;
	// Claude's form 6, only at the start or after a space or "(",
	// captured in 5, so an e-mail address stays text), or an argument
	// placeholder (7).
	templatePart = lazyRegexp("(?s)```!\\s*\\n?(.*?)\\n?```|!\\{([^}\\n]+)\\}|!`([^`\\n]+)`|@\\{([^}\\n]+)\\}|(^|[\\s(])@([A-Za-z0-9_./~-][^\\s)]*)|(\\$ARGUMENTS\\[\\d+\\]|\\$ARGUMENTS|\\$\\d+|\\$[A-Za-z_][A-Za-z0-9_-]*)")
)

// lazyRegexp compiles expr on first use: compiling at package
// initialisation would add to every start of the agent, which answers the
// editor before it expands any template.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

type partKind int

const (
	partText partKind = iota
	partArgument
	partFile
	partShell
)

// part is one piece of a parsed template: literal text, an argument
// placeholder as written, the path of a file reference or the command of
// a snippet.
type part struct {
	kind partKind
	text string
}

// parseTemplate splits a template into literal text and the places that
// expand. Only the template is parsed: substituted text never is.
func parseTemplate(tmpl string) []part {
	var parts []part
	addText := func(s string) {
		if s != "" {
			parts = append(parts, part{kind: partText, text: s})
		}
	}
	last := 0
	for _, m := range templatePart().FindAllStringSubmatchIndex(tmpl, -1) {
		addText(tmpl[last:m[0]])
		last = m[1]
		group := func(i int) string { return tmpl[m[2*i]:m[2*i+1]] }
		switch {
		case m[2] >= 0:
			parts = append(parts, part{kind: partShell, text: group(1)})
		case m[4] >= 0:
			parts = append(parts, part{kind: partShell, text: group(2)})
		case m[6] >= 0:
			parts = append(parts, part{kind: partShell, text: group(3)})
		case m[8] >= 0:
			parts = append(parts, part{kind: partFile, text: group(4)})
		case m[12] >= 0:
			addText(group(5))
			parts = append(parts, part{kind: partFile, text: group(6)})
		default:
			parts = append(parts, part{kind: partArgument, text: group(7)})
		}
	}
	addText(tmpl[last:])
	return parts
}

// Arguments are one invocation's arguments as Claude Code substitutes
// them: Raw for $ARGUMENTS, Words (split as a shell splits them, quotes
// removed) for $N and $ARGUMENTS[N], 0-based, and Names, the
// `arguments` frontmatter, naming the words in order ($name).
type Arguments struct {
	Raw   string
	Words []string
	Names []string
}

// NewArguments splits args for a template whose frontmatter names them
// names.
func NewArguments(args string, names []string) Arguments {
	return Arguments{Raw: args, Words: splitArgs(args), Names: names}
}

// value is what placeholder (as written: "$ARGUMENTS", "$0",
// "$ARGUMENTS[2]", "$name") stands for; ok is false for a $name the
// frontmatter does not declare, which stays text. words is set for
// $ARGUMENTS: the words it is made of.
func (a Arguments) value(placeholder string) (v string, words []string, ok bool) {
	m := argument().FindStringSubmatch(placeholder)
	if m == nil || m[0] != placeholder {
		return "", nil, false
	}
	word := func(n string) string {
		i, err := strconv.Atoi(n)
		if err != nil || i >= len(a.Words) {
			return ""
		}
		return a.Words[i]
	}
	switch {
	case m[1] != "":
		return word(m[1]), nil, true
	case m[2] != "":
		return word(m[2]), nil, true
	case m[3] != "":
		for i, n := range a.Names {
			if n == m[3] {
				return word(strconv.Itoa(i)), nil, true
			}
		}
		return "", nil, false
	}
	return a.Raw, a.Words, true
}

// Substitute replaces the argument placeholders of text with their
// values, in one pass (a value is never scanned again), and appends
// "ARGUMENTS: <args>" when text has none and there are arguments, as
// Claude Code does, so that `/review focus on errors` is never lost.
func (a Arguments) Substitute(text string) string {
	used := false
	out := argument().ReplaceAllStringFunc(text, func(m string) string {
		v, _, ok := a.value(m)
		if !ok {
			return m
		}
		used = true
		return v
	})
	if !used && strings.TrimSpace(a.Raw) != "" {
		out = strings.TrimRight(out, "\n") + "\n\nARGUMENTS: " + a.Raw
	}
	return out
}

// Expand returns the template with args and the referenced files and
// command outputs substituted. Files are read first (reading has no side
// effect, so a missing file fails the command before anyone is asked
// about its shell commands); then all shell commands are approved at
// once; then they run.
func (e *Expander) Expand(ctx context.Context, tmpl, args string) (string, error) {
	a := NewArguments(args, e.ArgNames)
	parts := parseTemplate(tmpl)
	out := make([]string, len(parts))
	var cmds []string
	var cmdAt []int
	used := false
	for i, p := range parts {
		switch p.kind {
		case partText:
			out[i] = p.text
		case partArgument:
			v, _, ok := a.value(p.text)
			if !ok {
				out[i] = p.text
				continue
			}
			out[i], used = v, true
		case partFile:
			text, err := e.readFile(a.substituteIn(p.text, nil, &used))
			if err != nil {
				return "", err
			}
			out[i] = text
		case partShell:
			cmd := a.substituteIn(p.text, shellQuoted, &used)
			if hasNestedPlaceholder(a, p.text) {
				return "", fmt.Errorf("%w: the command %q puts an argument inside a command substitution ($(…) or backticks) or a here-document, where cordis cannot keep it from becoming shell syntax", ErrShellDenied, strings.TrimSpace(p.text))
			}
			cmds = append(cmds, strings.TrimSpace(cmd))
			cmdAt = append(cmdAt, i)
		}
	}
	if len(cmds) > 0 {
		if e.Approve == nil || e.Shell == nil {
			return "", ErrShellDenied
		}
		approved, err := e.Approve(ctx, cmds)
		switch {
		case err != nil && errors.Is(err, ErrShellDenied):
			return "", err
		case err != nil:
			return "", fmt.Errorf("%w: %v", ErrShellDenied, err)
		case len(approved) != len(cmds):
			return "", ErrShellDenied
		}
		for j, cmd := range approved {
			res, err := e.Shell(ctx, strings.TrimSpace(cmd))
			if err != nil {
				return "", fmt.Errorf("!{%s}: %v", cmd, err)
			}
			out[cmdAt[j]] = res
		}
	}
	expanded := strings.Join(out, "")
	if !used && strings.TrimSpace(args) != "" {
		expanded = strings.TrimRight(expanded, "\n") + "\n\nARGUMENTS: " + args
	}
	return expanded, nil
}

// substituteIn replaces the placeholders inside a file reference or a
// snippet in one pass, each value passed through quote (with the quoting
// context at the placeholder) when quote is not nil; it sets *used when
// any was replaced.
func (a Arguments) substituteIn(s string, quote func(ctx quoteContext, v string, words []string, all bool) string, used *bool) string {
	var b strings.Builder
	last := 0
	for _, m := range argument().FindAllStringIndex(s, -1) {
		v, words, ok := a.value(s[m[0]:m[1]])
		if !ok {
			continue
		}
		*used = true
		b.WriteString(s[last:m[0]])
		if quote != nil {
			v = quote(quoteAt(s[:m[0]]), v, words, s[m[0]:m[1]] == "$ARGUMENTS")
		}
		b.WriteString(v)
		last = m[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// hasNestedPlaceholder reports whether a placeholder with a value sits
// inside a command substitution, backticks or a here-document of the
// shell text s.
func hasNestedPlaceholder(a Arguments, s string) bool {
	for _, m := range argument().FindAllStringIndex(s, -1) {
		if _, _, ok := a.value(s[m[0]:m[1]]); ok && quoteAt(s[:m[0]]) == inSubstitution {
			return true
		}
	}
	return false
}

// quoteContext is where a placeholder sits in a shell command.
type quoteContext int

const (
	bare quoteContext = iota
	inSingle
	inDouble
	// inSubstitution is inside $(…), backticks or after a here-document
	// operator: the shell parses the text again there, with quoting of
	// its own, so no quoting cordis adds can be trusted.
	inSubstitution
)

// quoteAt is the quoting context at the end of the shell text before.
// Once a command substitution, backticks or a here-document has opened
// (outside single quotes), the answer is inSubstitution for the rest:
// telling where they close would need the shell's whole grammar.
func quoteAt(before string) quoteContext {
	ctx := bare
	for i := 0; i < len(before); i++ {
		c := before[i]
		if ctx != inSingle && (c == '`' || c == '$' && i+1 < len(before) && before[i+1] == '(' ||
			c == '<' && i+1 < len(before) && before[i+1] == '<') {
			return inSubstitution
		}
		switch ctx {
		case bare:
			switch c {
			case '\\':
				i++
			case '\'':
				ctx = inSingle
			case '"':
				ctx = inDouble
			}
		case inSingle:
			if c == '\'' {
				ctx = bare
			}
		case inDouble:
			switch c {
			case '\\':
				i++
			case '"':
				ctx = bare
			}
		}
	}
	return ctx
}

// shellQuoted is an argument's value made into shell data where it
// stands, so that it can never become shell syntax while the command
// gets the words Claude Code's raw substitution gives it: bare
// $ARGUMENTS becomes its words, each single-quoted (as the shell would
// have split them); a bare $N one single-quoted word; inside quotes the
// value is escaped for those quotes.
func shellQuoted(ctx quoteContext, v string, words []string, all bool) string {
	switch ctx {
	case inSingle:
		return strings.ReplaceAll(v, "'", `'\''`)
	case inDouble:
		return doubleQuoteEscaper.Replace(v)
	}
	if all {
		q := make([]string, len(words))
		for i, w := range words {
			q[i] = shellQuote(w)
		}
		return strings.Join(q, " ")
	}
	return shellQuote(v)
}

var doubleQuoteEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`")

// shellQuote makes s one single-quoted sh word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// splitArgs splits a Claude command's arguments: splitWords without
// backslash escapes (a backslash stays as typed).
func splitArgs(s string) []string { return splitWords(s, false) }

// splitWords splits s on blanks, with "double" and 'single' quoted runs
// kept together and their quotes removed; with escapes, a backslash
// outside single quotes takes the next character literally.
func splitWords(s string, escapes bool) []string {
	var out []string
	var cur strings.Builder
	var quote rune
	escaped, has := false, false
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped, has = false, true
		case escapes && r == '\\' && quote != '\'':
			escaped, has = true, true
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, has = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if has {
				out = append(out, cur.String())
				cur.Reset()
				has = false
			}
		default:
			cur.WriteRune(r)
			has = true
		}
	}
	if has {
		out = append(out, cur.String())
	}
	return out
}

func (e *Expander) readFile(path string) (string, error) {
	path = strings.TrimSpace(path)
	if strings.HasPrefix(path, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			path = filepath.Join(home, path[2:])
		}
	}
	if e.Resolve == nil || len(e.Roots) == 0 {
		return "", fmt.Errorf("@%s: file references are not available here", path)
	}
	abs, err := e.Resolve(path)
	if err != nil {
		return "", fmt.Errorf("@%s: %v", path, err)
	}
	limit := e.MaxFileBytes
	if limit <= 0 {
		limit = 100 << 10
	}
	// Opened through the roots, and only if it is a regular file: a FIFO
	// is refused, not waited on.
	dirs := confine.New(e.Roots...)
	defer dirs.Close()
	at, err := dirs.Locate(abs)
	if err != nil {
		return "", fmt.Errorf("@%s: %v", path, err)
	}
	f, err := at.Open()
	if err != nil {
		return "", fmt.Errorf("@%s: %v", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return "", fmt.Errorf("@%s: %v", path, err)
	}
	truncated := ""
	if len(data) > limit {
		data = data[:limit]
		for len(data) > 0 && !utf8.Valid(data) {
			data = data[:len(data)-1]
		}
		truncated = fmt.Sprintf("\n[cordis: %s truncated at %d bytes]", path, limit)
	}
	return string(data) + truncated, nil
}
