package commands

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// TestExpandClaudeCodeArguments: arguments substitute as Claude Code's
// skills and commands define them: $ARGUMENTS as typed, $N and
// $ARGUMENTS[N] 0-based over shell-split words ('single' and "double"
// quotes group), $name from the `arguments` frontmatter, an undeclared
// $name left as text, and "ARGUMENTS: <args>" appended to a body that
// uses none.
func TestExpandClaudeCodeArguments(t *testing.T) {
	e := &Expander{ArgNames: []string{"file", "mode"}}
	tests := []struct{ tmpl, args, want string }{
		{"all=$ARGUMENTS 0=$0 1=$1 a2=$ARGUMENTS[2] miss=$7", `'one two' "three" four`, `all='one two' "three" four 0=one two 1=three a2=four miss=`},
		{"Fix $file in $mode mode; $HOME stays", "main.go strict", "Fix main.go in strict mode; $HOME stays"},
		{"Review the change.\n", "focus on errors", "Review the change.\n\nARGUMENTS: focus on errors"},
		{"Review the change.", "", "Review the change."},
	}
	for _, tt := range tests {
		got, err := e.Expand(context.Background(), tt.tmpl, tt.args)
		if err != nil || got != tt.want {
			t.Errorf("Expand(%q, %q) = %q, %v; want %q", tt.tmpl, tt.args, got, err, tt.want)
		}
	}
	// The Skill tool's loader substitutes the same way, without snippets.
	if got := NewArguments("a b", nil).Substitute("x=$1"); got != "x=b" {
		t.Errorf("Substitute = %q", got)
	}
	if got := NewArguments("a b", nil).Substitute("no placeholder"); got != "no placeholder\n\nARGUMENTS: a b" {
		t.Errorf("Substitute = %q", got)
	}
}

// TestExpandFencedShellBlockGetsArgumentWords: a ```! block runs as a
// snippet (the form a plugin's setup command uses), and a bare
// $ARGUMENTS in it reaches the script as the words a shell would have
// split it into, while quoting keeps every value data: run through a
// real sh, nothing an argument holds runs, in any quoting context.
func TestExpandFencedShellBlockGetsArgumentWords(t *testing.T) {
	var asked []string
	e := &Expander{
		Approve: func(_ context.Context, cmds []string) ([]string, error) { asked = cmds; return cmds, nil },
		Shell: func(ctx context.Context, cmd string) (string, error) {
			out, err := exec.CommandContext(ctx, "sh", "-c", cmd).CombinedOutput()
			return strings.TrimRight(string(out), "\n"), err
		},
	}
	tmpl := "Start:\n\n```!\nprintf '[%s]' $ARGUMENTS; echo; printf '<%s>' \"$ARGUMENTS\" '$0' \"$1\"\n```\n\nWork on it."
	args := `"Build a todo API" --max-iterations 5 $(touch pwned) 'a"b' ` + "`id`"
	got, err := e.Expand(context.Background(), tmpl, args)
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || !strings.HasPrefix(asked[0], "printf") {
		t.Fatalf("asked %q", asked)
	}
	want := "Start:\n\n[Build a todo API][--max-iterations][5][$(touch][pwned)][a\"b][`id`]\n" +
		"<" + args + "><Build a todo API><--max-iterations>\n\nWork on it."
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestArgumentInsideCommandSubstitutionIsRefused: inside $(…), backticks
// or a here-document the shell parses the text again with quoting of its
// own, so an argument placed there could become shell syntax; the
// expansion fails instead of running it. Text around such a construct,
// and a construct without an argument, are fine.
func TestArgumentInsideCommandSubstitutionIsRefused(t *testing.T) {
	shell := func(_ context.Context, cmd string) (string, error) { return "ran: " + cmd, nil }
	approve := func(_ context.Context, cmds []string) ([]string, error) { return cmds, nil }
	for _, tc := range []struct {
		template string
		refused  bool
	}{
		{"!`echo \"$(echo '$0')\"`", true},
		{"!`echo $(cat $ARGUMENTS)`", true},
		{"```!\ncat <<EOF\n$ARGUMENTS\nEOF\n```", true},
		{"!`echo $(date) $0`", true}, // conservative: after $( everything counts as inside
		{"!`echo '$(not a substitution)' $0`", false},
		{"!`echo $(date)`", false},
		{"!`echo \"$0\"`", false},
	} {
		e := &Expander{Shell: shell, Approve: approve}
		_, err := e.Expand(context.Background(), tc.template, "'; touch pwned; '")
		if refused := errors.Is(err, ErrShellDenied); refused != tc.refused {
			t.Errorf("%q: err = %v, want refused %v", tc.template, err, tc.refused)
		}
	}
}
