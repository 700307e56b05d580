package commands

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/loop/tools"
	"github.com/google/go-cmp/cmp"
)

// outsideSecret is the content of a file outside the project.
const outsideSecret = "ssh-ed25519 PRIVATE-KEY-outside-the-project"

// realDir is a fresh directory with its own symlinks evaluated.
func realDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A template's @{file} is opened through the session's directories, not
// by the path Resolve checked: a directory swapped for a link out between
// the check and the open (here, deterministically, right after Resolve
// returns) is not followed.
func TestExpandOpensFilesThroughTheRoots(t *testing.T) {
	root, outside := realDir(t), realDir(t)
	write(t, filepath.Join(root, "docs", "notes.md"), "inside notes")
	write(t, filepath.Join(outside, "notes.md"), outsideSecret)
	env := &tools.Env{Cwd: root, Roots: []string{root}}
	swap := func() {
		if err := os.Rename(filepath.Join(root, "docs"), filepath.Join(root, "docs-moved")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, filepath.Join(root, "docs")); err != nil {
			t.Fatal(err)
		}
	}
	e := &Expander{
		Roots: []string{root},
		Resolve: func(p string) (string, error) {
			abs, err := env.Resolve(p)
			swap()
			return abs, err
		},
	}
	got, err := e.Expand(context.Background(), "Read @{docs/notes.md}", "")
	if strings.Contains(got, outsideSecret) || err == nil {
		t.Fatalf("Expand = %q, %v; want the swapped link refused", got, err)
	}
}

// Project command files are read only inside the project: a command file
// linked out of it, or a command folder linked out, is not read and is
// reported (by /doctor) with where it leads; a link inside the project
// works.
func TestProjectCommandFilesStayInsideTheProject(t *testing.T) {
	cwd, home, outside := realDir(t), realDir(t), realDir(t)
	key := filepath.Join(outside, ".ssh", "id_ed25519")
	write(t, key, outsideSecret)
	write(t, filepath.Join(outside, "commands", "planted.md"), outsideSecret)
	write(t, filepath.Join(cwd, "docs", "review.md"), "Review $ARGUMENTS")
	write(t, filepath.Join(cwd, ".claude", "commands", "plain.md"), "Plain")
	mustLink(t, key, filepath.Join(cwd, ".claude", "commands", "leak.md"))
	mustLink(t, "../../docs/review.md", filepath.Join(cwd, ".claude", "commands", "review.md"))
	mustLink(t, outside, filepath.Join(cwd, ".cordis"))

	s := NewRegistry(nil, testSources(home, nil)).Load(cwd)
	if diff := cmp.Diff([]string{"plain:project", "review:project"}, names(s)); diff != "" {
		t.Fatalf("commands (-want +got):\n%s", diff)
	}
	for _, c := range s.Commands() {
		if strings.Contains(c.(*Prompt).Template, outsideSecret) || strings.Contains(SpecOf(c).Description, outsideSecret) {
			t.Fatalf("/%s holds the file outside", SpecOf(c).Name)
		}
	}
	want := []string{
		filepath.Join(cwd, ".claude", "commands", "leak.md") + ": it leads to " + key + ", outside the project (" + cwd + "), so it was not read",
		filepath.Join(cwd, ".cordis", "commands") + ": it leads to " + filepath.Join(outside, "commands") + ", outside the project (" + cwd + "), so it was not read",
	}
	var got []string
	for _, e := range s.Errors {
		got = append(got, e.String())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("errors (-want +got):\n%s", diff)
	}
}

func mustLink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
