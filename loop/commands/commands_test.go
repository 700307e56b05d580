package commands

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	existing := map[string]bool{"/tmp": true, "/var": true}
	exists := func(p string) bool { return existing[p] }
	tests := []struct {
		text, name, args string
		ok               bool
	}{
		{"/help", "help", "", true},
		{"/compact keep the API notes", "compact", "keep the API notes", true},
		{"/git:commit -m x", "git:commit", "-m x", true},
		{"/review\nline two", "review", "line two", true},
		{"/var/log/syslog has errors", "", "", false}, // a path, not a name
		{"/tmp", "", "", false},                       // an existing absolute path
		{"/tmp is full", "", "", false},
		{"hello /help", "", "", false},
		{"/", "", "", false},
		{"/with.dot", "", "", false},
		{"//comment", "", "", false},
	}
	for _, tt := range tests {
		name, args, ok := Parse(tt.text, exists)
		if name != tt.name || args != tt.args || ok != tt.ok {
			t.Errorf("Parse(%q) = %q, %q, %v; want %q, %q, %v", tt.text, name, args, ok, tt.name, tt.args, tt.ok)
		}
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func builtin(name string, aliases ...string) *Local {
	return &Local{Spec: Spec{Name: name, Aliases: aliases, Source: SourceBuiltin, Description: "built-in " + name},
		Run: func(context.Context, *Invocation) Intent { return ShowText{Text: name} }}
}

func names(s *Set) []string {
	var out []string
	for _, c := range s.Commands() {
		sp := SpecOf(c)
		out = append(out, fmt.Sprintf("%s:%s", sp.Name, sp.Source))
	}
	return out
}

func TestRegistryPrecedenceProtectionAndErrors(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	write(t, filepath.Join(cwd, ".cordis/commands/review.md"), "---\ndescription: project review\n---\nReview $ARGUMENTS")
	write(t, filepath.Join(cwd, ".claude/commands/review.md"), "claude-folder review (shadowed by .cordis)")
	write(t, filepath.Join(cwd, ".claude/commands/help.md"), "I try to replace /help")
	write(t, filepath.Join(cwd, ".claude/commands/git/commit.md"), "Commit with message $0")
	write(t, filepath.Join(cwd, ".claude/commands/broken.md"), "---\n- [unclosed\n---\nx")
	write(t, filepath.Join(home, ".claude/commands/review.md"), "user review")
	write(t, filepath.Join(home, ".cordis/commands/deploy.md"), "Deploy it")
	reg := NewRegistry([]Command{builtin("help", "h"), builtin("status")}, testSources(home, nil))
	s := reg.Load(cwd)

	want := []string{"deploy:user", "git:commit:project", "help:builtin", "review:project", "status:builtin"}
	if diff := cmp.Diff(want, names(s)); diff != "" {
		t.Fatalf("commands (-want +got):\n%s", diff)
	}
	review, _ := s.Lookup("review")
	if p := review.(*Prompt); p.Description != "project review" || !strings.HasPrefix(p.Template, "Review") {
		t.Fatalf("review came from the wrong source: %+v", p)
	}
	if h, ok := s.Lookup("h"); !ok || SpecOf(h).Name != "help" {
		t.Fatal("alias h does not resolve to help")
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "protected") {
		t.Fatalf("warnings = %q", s.Warnings)
	}
	if len(s.Errors) != 1 || !strings.Contains(s.Errors[0].Path, "broken.md") {
		t.Fatalf("errors = %v", s.Errors)
	}
}

func TestAliasCollisionKeepsFirstOwner(t *testing.T) {
	reg := NewRegistry([]Command{builtin("beta", "x"), builtin("alpha", "x"), builtin("gamma", "alpha")}, testSources("", nil))
	s := reg.Load(t.TempDir())
	if c, _ := s.Lookup("x"); SpecOf(c).Name != "alpha" {
		t.Fatalf("alias x owned by %s, want alpha (first in name order)", SpecOf(c).Name)
	}
	if c, _ := s.Lookup("alpha"); SpecOf(c).Name != "alpha" {
		t.Fatal("an alias took over a command name")
	}
	if len(s.Warnings) != 2 {
		t.Fatalf("warnings = %q, want two collisions reported", s.Warnings)
	}
	// Deterministic: the same inputs in another order give the same owner.
	s2 := NewRegistry([]Command{builtin("alpha", "x"), builtin("gamma", "alpha"), builtin("beta", "x")}, testSources("", nil)).Load(t.TempDir())
	if c, _ := s2.Lookup("x"); SpecOf(c).Name != "alpha" {
		t.Fatal("alias ownership depends on registration order")
	}
}

func TestEnabledIsEvaluatedOnEveryLookup(t *testing.T) {
	on := true
	c := builtin("flaky")
	c.Enabled = func() bool { return on }
	s := NewRegistry([]Command{c}, testSources("", nil)).Load(t.TempDir())
	if _, ok := s.Lookup("flaky"); !ok {
		t.Fatal("enabled command not found")
	}
	on = false
	if _, ok := s.Lookup("flaky"); ok {
		t.Fatal("a disabled command is still found (enabled-ness was cached)")
	}
}

func TestCacheInvalidatesWhenFilesChange(t *testing.T) {
	cwd := t.TempDir()
	reg := NewRegistry(nil, testSources("", nil))
	if n := len(reg.Load(cwd).Commands()); n != 0 {
		t.Fatalf("%d commands in an empty project", n)
	}
	first := reg.Load(cwd)
	if reg.Load(cwd) != first {
		t.Fatal("an unchanged project was reloaded")
	}
	path := filepath.Join(cwd, ".cordis/commands/new.md")
	write(t, path, "v1")
	s := reg.Load(cwd)
	if _, ok := s.Lookup("new"); !ok {
		t.Fatal("a new command file was not picked up")
	}
	write(t, path, "version two, longer")
	os.Chtimes(path, time.Now().Add(time.Hour), time.Now().Add(time.Hour))
	c, _ := reg.Load(cwd).Lookup("new")
	if c.(*Prompt).Template != "version two, longer" {
		t.Fatal("an edited command file was not reloaded")
	}
	os.Remove(path)
	if _, ok := reg.Load(cwd).Lookup("new"); ok {
		t.Fatal("a deleted command is still offered")
	}
}

func TestSuggest(t *testing.T) {
	s := NewRegistry([]Command{builtin("compact"), builtin("clear"), builtin("help"), builtin("status")}, testSources("", nil)).Load(t.TempDir())
	if got := s.Suggest("compct"); len(got) == 0 || got[0] != "compact" {
		t.Fatalf("Suggest(compct) = %v", got)
	}
	if got := s.Suggest("zzzzzzzz"); len(got) != 0 {
		t.Fatalf("Suggest(zzzzzzzz) = %v", got)
	}
}

func TestFrontmatterAllowedTools(t *testing.T) {
	cwd := t.TempDir()
	write(t, filepath.Join(cwd, ".claude/commands/commit.md"), "---\nallowed-tools: Bash(git add:*), Bash(git commit:*), Read\nargument-hint: [message]\nmodel: claude-haiku-4-5\n---\n## Commit\nDo it")
	c, ok := NewRegistry(nil, testSources("", nil)).Load(cwd).Lookup("commit")
	if !ok {
		t.Fatal("not loaded")
	}
	p := c.(*Prompt)
	if diff := cmp.Diff([]string{"Bash(git add:*)", "Bash(git commit:*)", "Read"}, p.AllowedTools); diff != "" {
		t.Fatalf("allowed tools (-want +got):\n%s", diff)
	}
	if p.ArgumentHint != "[message]" || p.Model != "claude-haiku-4-5" || p.Description != "Commit" {
		t.Fatalf("spec = %+v", p.Spec)
	}
}

func confined(root string) func(string) (string, error) {
	return func(p string) (string, error) {
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		p = filepath.Clean(p)
		if !strings.HasPrefix(p, root+string(filepath.Separator)) {
			return "", fmt.Errorf("path %s is outside the session's directories", p)
		}
		return p, nil
	}
}

func TestExpandOrderAndForms(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "notes.txt"), "NOTES")
	var confirmed [][]string
	e := &Expander{
		Resolve: confined(root), Roots: []string{root},
		Approve: func(_ context.Context, cmds []string) ([]string, error) {
			confirmed = append(confirmed, cmds)
			return cmds, nil
		},
		Shell: func(_ context.Context, cmd string) (string, error) { return "<" + cmd + ">", nil },
	}
	got, err := e.Expand(context.Background(), "all=$ARGUMENTS first=$0 second=$ARGUMENTS[1] third=$2 file=@{notes.txt} claude: @notes.txt sh=!{git status} cc=!`date`", `"fix bug" fast`)
	if err != nil {
		t.Fatal(err)
	}
	want := `all="fix bug" fast first=fix bug second=fast third= file=NOTES claude: NOTES sh=<git status> cc=<date>`
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	if diff := cmp.Diff([][]string{{"git status", "date"}}, confirmed); diff != "" {
		t.Fatalf("all shell commands must be confirmed in one request (-want +got):\n%s", diff)
	}
}

func TestExpandShellFailsClosed(t *testing.T) {
	ran := false
	shell := func(context.Context, string) (string, error) { ran = true; return "", nil }
	tests := []struct {
		name    string
		approve func(context.Context, []string) ([]string, error)
	}{
		{"no approval available", nil},
		{"user declined", func(context.Context, []string) ([]string, error) { return nil, ErrShellDenied }},
		{"approval failed", func(context.Context, []string) ([]string, error) { return nil, errors.New("editor gone") }},
		{"approval answered for fewer commands", func(context.Context, []string) ([]string, error) { return nil, nil }},
	}
	for _, tt := range tests {
		e := &Expander{Approve: tt.approve, Shell: shell}
		if _, err := e.Expand(context.Background(), "x !{rm -rf /tmp/x}", ""); !errors.Is(err, ErrShellDenied) {
			t.Errorf("%s: err = %v, want ErrShellDenied", tt.name, err)
		}
	}
	if ran {
		t.Fatal("a shell command ran without confirmation")
	}
}

func TestExpandFileConfinementAndCap(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "big.txt"), strings.Repeat("a", 300))
	e := &Expander{Resolve: confined(root), Roots: []string{root}, MaxFileBytes: 100}
	got, err := e.Expand(context.Background(), "@{big.txt}", "")
	if err != nil || !strings.HasPrefix(got, strings.Repeat("a", 100)+"\n[cordis: big.txt truncated at 100 bytes]") {
		t.Fatalf("got %q, %v", got, err)
	}
	if _, err := e.Expand(context.Background(), "@{../../etc/passwd}", ""); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Fatalf("escape not refused: %v", err)
	}
	// An email address is not a file reference.
	if got, err := e.Expand(context.Background(), "mail me@example.com", ""); err != nil || got != "mail me@example.com" {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestArgumentsAppendedWhenTemplateHasNoPlaceholder(t *testing.T) {
	e := &Expander{}
	got, _ := e.Expand(context.Background(), "Review the code.\n", "focus on errors")
	if got != "Review the code.\n\nARGUMENTS: focus on errors" {
		t.Fatalf("got %q", got)
	}
}

// TestClaudeDir: $CLAUDE_CONFIG_DIR moves the user's Claude commands;
// ~/.claude/commands is then not read.
func TestClaudeDir(t *testing.T) {
	home, claudeDir, cwd := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, ".claude/commands/old.md"), "from ~/.claude")
	write(t, filepath.Join(claudeDir, "commands/moved.md"), "from CLAUDE_CONFIG_DIR")
	reg := NewRegistry(nil, testSources(home, func(string) string { return claudeDir }))
	if diff := cmp.Diff([]string{"moved:user"}, names(reg.Load(cwd))); diff != "" {
		t.Fatalf("commands (-want +got):\n%s", diff)
	}
}

// TestExpandNeverRescansSubstitutedText: shell snippets and file
// references are found in the template only. An argument's or an included
// file's !{…}, !`…` or @{…} stays text: it is neither run, nor offered for
// approval, nor followed.
func TestExpandNeverRescansSubstitutedText(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "README.md"), "setup: !{touch from-file} !`touch from-file-2` @{secret.txt}")
	write(t, filepath.Join(root, "secret.txt"), "SECRET")
	var asked [][]string
	var ran []string
	e := &Expander{
		Resolve: confined(root), Roots: []string{root},
		Approve: func(_ context.Context, cmds []string) ([]string, error) {
			asked = append(asked, cmds)
			return cmds, nil
		},
		Shell: func(_ context.Context, cmd string) (string, error) { ran = append(ran, cmd); return "OUT", nil },
	}
	got, err := e.Expand(context.Background(), "Task: $ARGUMENTS\nDocs: @{README.md}\nState: !{git status}", "!{touch from-args} @{secret.txt}")
	if err != nil {
		t.Fatal(err)
	}
	want := "Task: !{touch from-args} @{secret.txt}\nDocs: setup: !{touch from-file} !`touch from-file-2` @{secret.txt}\nState: OUT"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	if diff := cmp.Diff([][]string{{"git status"}}, asked); diff != "" {
		t.Fatalf("approval asked for (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"git status"}, ran); diff != "" {
		t.Fatalf("commands run (-want +got):\n%s", diff)
	}
	// Without a snippet in the template, nothing is asked at all.
	asked = nil
	if _, err := e.Expand(context.Background(), "Read @{README.md}", ""); err != nil || len(asked) != 0 {
		t.Fatalf("asked %v, err %v", asked, err)
	}
}

// TestExpandArgumentsInSnippetsAreQuoted: an argument inside a snippet is
// one shell word, so it cannot add a command; a file reference may name
// its file by an argument.
func TestExpandArgumentsInSnippetsAreQuoted(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "main.go"), "package main")
	var asked []string
	e := &Expander{
		Resolve: confined(root), Roots: []string{root},
		Approve: func(_ context.Context, cmds []string) ([]string, error) {
			asked = cmds
			return cmds, nil
		},
		Shell: func(context.Context, string) (string, error) { return "", nil },
	}
	got, err := e.Expand(context.Background(), "@{$0} !{git log $0 $1}", `main.go "x'; touch pwned; '"`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got, "package main ") {
		t.Fatalf("@{$0} not included: %q", got)
	}
	if diff := cmp.Diff([]string{`git log 'main.go' 'x'\''; touch pwned; '\'''`}, asked); diff != "" {
		t.Fatalf("commands (-want +got):\n%s", diff)
	}
}
