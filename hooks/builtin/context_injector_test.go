package builtin

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cordis-agent/cordis/hooks"
	"github.com/google/go-cmp/cmp"
)

// A context file that is a link out of the project (to the user's
// credentials) is never read, and the user is told once per session which
// file was skipped and why; a link inside the project is read.
func TestContextInjectorReadsOnlyInsideTheProject(t *testing.T) {
	project, home := realDir(t), realDir(t)
	const secret = "aws_secret_access_key = AKIA-NOT-FOR-THE-MODEL"
	credentials := filepath.Join(home, ".aws", "credentials")
	if err := os.MkdirAll(filepath.Dir(credentials), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(credentials, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(credentials, filepath.Join(project, "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "RULES.md"), []byte("the real rules"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("RULES.md", filepath.Join(project, "CLAUDE.md")); err != nil {
		t.Fatal(err)
	}
	p, _ := pipeline(t, DefaultConfig(), Options{})
	start := func(session, source string) hooks.Decision {
		return p.Run(context.Background(), &hooks.Input{Event: hooks.SessionStart, SessionID: session, Cwd: project, Source: source})
	}

	d := start("s1", "startup")
	want := fmt.Sprintf("Contents of %s (project instructions):\n\nthe real rules", filepath.Join(project, "CLAUDE.md"))
	if diff := cmp.Diff([]string{want}, d.SystemContext); diff != "" {
		t.Fatalf("system context (-want +got):\n%s", diff)
	}
	notice := fmt.Sprintf("[cordis: the project instructions in %s were not read: it leads to %s, outside the project (%s).]",
		filepath.Join(project, "AGENTS.md"), credentials, project)
	if diff := cmp.Diff([]string{notice}, d.SystemMessages); diff != "" {
		t.Fatalf("messages (-want +got):\n%s", diff)
	}
	if d := start("s1", "compact"); len(d.SystemMessages) != 0 || len(d.SystemContext) != 1 {
		t.Fatalf("the same skip was announced again, or the context lost: %+v", d)
	}
	if d := start("s2", "startup"); len(d.SystemMessages) != 1 {
		t.Fatalf("another session was not told: %+v", d)
	}
}

func realDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}
