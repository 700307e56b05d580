package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
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
}

// ErrShellDenied is returned when the template's shell commands may not
// run; errors from Approve wrap it.
var ErrShellDenied = errors.New("the command's shell commands were not approved, so it did not run")

var (
	positional = lazyRegexp(`\$([1-9])`)
	argument   = lazyRegexp(`\$ARGUMENTS|\$([1-9])`)
	// templatePart finds, leftmost first, what a template expands: a shell
	// snippet (groups 1, 2), a file reference (3; Claude's form 5, only at
	// the start or after a space or "(", captured in 4, so an e-mail
	// address stays text), $ARGUMENTS, or $N (6).
	templatePart = lazyRegexp("!\\{([^}\\n]+)\\}|!`([^`\\n]+)`|@\\{([^}\\n]+)\\}|(^|[\\s(])@([A-Za-z0-9_./~-][^\\s)]*)|\\$ARGUMENTS|\\$([1-9])")
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
	partArguments
	partPositional
	partFile
	partShell
)

// part is one piece of a parsed template. text is the literal text, the
// path of a file reference or the command of a snippet; n is the number
// of a positional argument.
type part struct {
	kind partKind
	text string
	n    int
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
			parts = append(parts, part{kind: partFile, text: group(3)})
		case m[10] >= 0:
			addText(group(4))
			parts = append(parts, part{kind: partFile, text: group(5)})
		case m[12] >= 0:
			parts = append(parts, part{kind: partPositional, n: int(tmpl[m[12]] - '0')})
		default:
			parts = append(parts, part{kind: partArguments})
		}
	}
	addText(tmpl[last:])
	return parts
}

// Expand returns the template with args and the referenced files and
// command outputs substituted. Files are read first (reading has no side
// effect, so a missing file fails the command before anyone is asked
// about its shell commands); then all shell commands are approved at
// once; then they run.
func (e *Expander) Expand(ctx context.Context, tmpl, args string) (string, error) {
	words := splitArgs(args)
	parts := parseTemplate(tmpl)
	out := make([]string, len(parts))
	var cmds []string
	var cmdAt []int
	for i, p := range parts {
		switch p.kind {
		case partText:
			out[i] = p.text
		case partArguments, partPositional:
			out[i] = argumentValue(p, args, words)
		case partFile:
			text, err := e.readFile(substituteArguments(p.text, args, words, nil))
			if err != nil {
				return "", err
			}
			out[i] = text
		case partShell:
			cmds = append(cmds, strings.TrimSpace(substituteArguments(p.text, args, words, shellQuote)))
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
	// A template without any placeholder gets the arguments appended, so
	// `/review focus on errors` is never lost.
	used := strings.Contains(tmpl, "$ARGUMENTS") || positional().MatchString(tmpl)
	if !used && strings.TrimSpace(args) != "" {
		expanded = strings.TrimRight(expanded, "\n") + "\n\n" + args
	}
	return expanded, nil
}

// argumentValue is $ARGUMENTS (the arguments as typed) or $N (the Nth
// whitespace-separated word, "quoted" words kept together; "" past the
// last).
func argumentValue(p part, args string, words []string) string {
	if p.kind == partArguments {
		return args
	}
	if p.n <= len(words) {
		return words[p.n-1]
	}
	return ""
}

// substituteArguments replaces $ARGUMENTS and $N in s in one pass (a
// substituted value is not scanned again), each value passed through
// quote when it is not nil.
func substituteArguments(s, args string, words []string, quote func(string) string) string {
	return argument().ReplaceAllStringFunc(s, func(m string) string {
		p := part{kind: partArguments}
		if m != "$ARGUMENTS" {
			p = part{kind: partPositional, n: int(m[1] - '0')}
		}
		v := argumentValue(p, args, words)
		if quote != nil {
			v = quote(v)
		}
		return v
	})
}

// shellQuote makes s one single-quoted sh word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func splitArgs(s string) []string {
	var out []string
	var cur strings.Builder
	inQuote, has := false, false
	for _, r := range s {
		switch {
		case r == '"':
			inQuote, has = !inQuote, true
		case !inQuote && (r == ' ' || r == '\t' || r == '\n'):
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
