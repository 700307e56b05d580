package commands

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/loop/tools"
)

// FuzzParse checks the slash-command parser on arbitrary prompt text: a
// command is "/" + a name of [a-zA-Z0-9:_-] that is not an existing
// absolute path, followed by whitespace and trimmed arguments; anything
// else is text.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"/help", "/compact keep the API notes", "/git:commit -m x", "/review\nline two",
		"/var/log/syslog has errors", "/tmp", "hello /help", "/", "//comment", "/with.dot",
		"/x\t\targs  ", "/ünïcode", "/a\r\nb", "/a\u00a0b", " /help", "/" + strings.Repeat("a", 300),
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	name := regexp.MustCompile(`^[a-zA-Z0-9:_-]+$`)
	f.Fuzz(func(t *testing.T, text string, isPath bool) {
		var asked []string
		exists := func(p string) bool { asked = append(asked, p); return isPath }
		n, args, ok := Parse(text, exists)
		if !ok {
			if n != "" || args != "" {
				t.Fatalf("Parse(%q) = %q, %q, false: want empty results", text, n, args)
			}
			if strings.HasPrefix(text, "/") && !isPath {
				// Not a path: the name must be what disqualified it.
				rest := text[1:]
				if i := strings.IndexAny(rest, " \t\n\r"); i >= 0 {
					rest = rest[:i]
				}
				if name.MatchString(rest) {
					t.Fatalf("Parse(%q): valid name %q refused", text, rest)
				}
			}
			return
		}
		if isPath {
			t.Fatalf("Parse(%q) = %q: an existing path taken for a command", text, n)
		}
		if !name.MatchString(n) {
			t.Fatalf("Parse(%q): name %q outside [a-zA-Z0-9:_-]", text, n)
		}
		if !strings.HasPrefix(text, "/"+n) {
			t.Fatalf("Parse(%q): name %q is not the text's start", text, n)
		}
		if rest := text[1+len(n):]; rest != "" && !strings.ContainsAny(rest[:1], " \t\n\r") {
			t.Fatalf("Parse(%q): name %q not followed by whitespace", text, n)
		}
		if args != strings.TrimSpace(args) || !strings.Contains(text, args) {
			t.Fatalf("Parse(%q): args %q", text, args)
		}
		if len(asked) != 1 || asked[0] != "/"+n {
			t.Fatalf("Parse(%q) asked exists(%q), want exactly /%s", text, asked, n)
		}
	})
}

// FuzzExpand expands arbitrary templates and arguments with @{} file
// references confined by the loop's own path check (tools.Env.Resolve)
// and shell commands refused: a file outside the session root never gets
// into the output, a template with shell commands fails closed, the shell
// is never run without approval, and only the template's own snippets are
// ever offered as shell commands (never text from arguments or files).
func FuzzExpand(f *testing.F) {
	root := f.TempDir()
	outside := f.TempDir()
	const secret = "OUTSIDE-SECRET-3f9c"
	os.WriteFile(filepath.Join(root, "notes.txt"), []byte("inside notes"), 0o644)
	os.WriteFile(filepath.Join(root, "evil.md"), []byte("!{touch y} !`touch z` @{notes.txt}"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte(secret), 0o644)
	os.Symlink(outside, filepath.Join(root, "link"))
	os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "file-link"))
	rel, _ := filepath.Rel(root, filepath.Join(outside, "secret.txt"))
	for _, s := range [][2]string{
		{"Review $1: @{notes.txt}", "main.go"},
		{"@{" + filepath.Join(outside, "secret.txt") + "}", ""},
		{"@{" + rel + "}", ""},
		{"@{link/secret.txt} and @file-link", ""},
		{"$ARGUMENTS", "@{../secret.txt}"},
		{"status: !{git status} and !`date`", ""},
		{"$1 $2 $9 $ARGUMENTS", `"a b" c`},
		{"@~/x @{~/.ssh/id_rsa}", ""},
		{"@{}", "@{notes.txt"},
		{"Read @{evil.md} and @evil.md", ""},
		{"Fix $ARGUMENTS now", "!{touch x} and !`touch y` and @{notes.txt}"},
		{"@{$1} !{git log $1}", `"notes.txt'; touch z; '"`},
	} {
		f.Add(s[0], s[1])
	}
	env := &tools.Env{Cwd: root, Roots: []string{root}}
	f.Fuzz(func(t *testing.T, tmpl, args string) {
		shellRan := false
		var asked []string
		e := &Expander{
			Resolve: env.Resolve,
			Approve: func(_ context.Context, cmds []string) ([]string, error) {
				asked = append(asked, cmds...)
				return nil, ErrShellDenied
			},
			Shell: func(context.Context, string) (string, error) {
				shellRan = true
				return "", nil
			},
		}
		out, err := e.Expand(context.Background(), tmpl, args)
		if shellRan {
			t.Fatalf("Expand(%q, %q) ran the shell without approval", tmpl, args)
		}
		// Only the template's own snippets are ever shell commands: the
		// arguments and included files never add one.
		snippets := 0
		for _, p := range parseTemplate(tmpl) {
			if p.kind == partShell {
				snippets++
			}
		}
		if len(asked) != 0 && len(asked) != snippets {
			t.Fatalf("Expand(%q, %q) asked about %q, but the template has %d snippets", tmpl, args, asked, snippets)
		}
		if errors.Is(err, ErrShellDenied) {
			return
		}
		if err != nil {
			if out != "" {
				t.Fatalf("Expand(%q, %q) = %q with error %v", tmpl, args, out, err)
			}
			return
		}
		if strings.Contains(out, secret) && !strings.Contains(tmpl+args, secret) {
			t.Fatalf("Expand(%q, %q) included a file outside the root: %q", tmpl, args, out)
		}
		// A template that asks for the shell fails closed.
		if snippets > 0 {
			t.Fatalf("Expand(%q, %q) = %q: shell commands passed without approval", tmpl, args, out)
		}
	})
}
