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
)

// Expander expands prompt-command templates. Substitution order is
// arguments ($ARGUMENTS, $1..$9), then files (@{path}, and Claude Code's
// @path), then shell (!{cmd}, and Claude Code's !`cmd`).
type Expander struct {
	// Resolve confines a path to the session's directories and returns
	// its absolute form.
	Resolve func(path string) (string, error)
	// Confirm asks the user to approve every shell command of one
	// expansion at once. nil, false or an error denies (fail closed).
	Confirm func(ctx context.Context, commands []string) (bool, error)
	// Shell runs one approved command and returns its (capped) output.
	Shell func(ctx context.Context, command string) (string, error)
	// MaxFileBytes caps an included file (default 100 KiB).
	MaxFileBytes int
}

// ErrShellDenied is returned when the user did not approve the template's
// shell commands.
var ErrShellDenied = errors.New("the command's shell commands were not approved, so it did not run")

var (
	positional  = lazyRegexp(`\$([1-9])`)
	fileBraced  = lazyRegexp(`@\{([^}\n]+)\}`)
	fileClaude  = lazyRegexp(`(^|[\s(])@([A-Za-z0-9_./~-][^\s)]*)`)
	shellBraced = lazyRegexp(`!\{([^}\n]+)\}`)
	shellClaude = lazyRegexp("!`([^`\n]+)`")
)

// lazyRegexp compiles expr on first use: compiling at package
// initialisation would add to every start of the agent, which answers the
// editor before it expands any template.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// Expand returns the template with args and the referenced files and
// command outputs substituted.
func (e *Expander) Expand(ctx context.Context, tmpl, args string) (string, error) {
	out := expandArgs(tmpl, args)

	var fileErr error
	include := func(path string) string {
		text, err := e.readFile(path)
		if err != nil && fileErr == nil {
			fileErr = err
		}
		return text
	}
	out = fileBraced().ReplaceAllStringFunc(out, func(m string) string {
		return include(fileBraced().FindStringSubmatch(m)[1])
	})
	out = fileClaude().ReplaceAllStringFunc(out, func(m string) string {
		sm := fileClaude().FindStringSubmatch(m)
		return sm[1] + include(sm[2])
	})
	if fileErr != nil {
		return "", fileErr
	}

	var cmds []string
	for _, re := range []*regexp.Regexp{shellBraced(), shellClaude()} {
		for _, m := range re.FindAllStringSubmatch(out, -1) {
			cmds = append(cmds, strings.TrimSpace(m[1]))
		}
	}
	if len(cmds) == 0 {
		return out, nil
	}
	if e.Confirm == nil || e.Shell == nil {
		return "", ErrShellDenied
	}
	ok, err := e.Confirm(ctx, cmds)
	if err != nil || !ok {
		return "", ErrShellDenied
	}
	var shellErr error
	run := func(cmd string) string {
		res, err := e.Shell(ctx, strings.TrimSpace(cmd))
		if err != nil && shellErr == nil {
			shellErr = fmt.Errorf("!{%s}: %v", cmd, err)
		}
		return res
	}
	out = shellBraced().ReplaceAllStringFunc(out, func(m string) string { return run(shellBraced().FindStringSubmatch(m)[1]) })
	out = shellClaude().ReplaceAllStringFunc(out, func(m string) string { return run(shellClaude().FindStringSubmatch(m)[1]) })
	if shellErr != nil {
		return "", shellErr
	}
	return out, nil
}

// expandArgs substitutes $ARGUMENTS and $1..$9 (whitespace-separated,
// "quoted" words kept together). A template without any placeholder gets
// the arguments appended, so `/review focus on errors` is never lost.
func expandArgs(tmpl, args string) string {
	words := splitArgs(args)
	used := strings.Contains(tmpl, "$ARGUMENTS") || positional().MatchString(tmpl)
	out := strings.ReplaceAll(tmpl, "$ARGUMENTS", args)
	out = positional().ReplaceAllStringFunc(out, func(m string) string {
		i, _ := strconv.Atoi(m[1:])
		if i <= len(words) {
			return words[i-1]
		}
		return ""
	})
	if !used && strings.TrimSpace(args) != "" {
		out = strings.TrimRight(out, "\n") + "\n\n" + args
	}
	return out
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
	if e.Resolve == nil {
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
	f, err := os.Open(abs)
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
