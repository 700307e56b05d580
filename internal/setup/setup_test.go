package setup

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestProjectFirst: project sources before user ones, each list's order
// kept, the earlier list first within a scope.
func TestProjectFirst(t *testing.T) {
	got := ProjectFirst(CordisCommands("/h"), []Source{Project(".x/commands"), User("/h/.x/commands")})
	want := []Source{Project(".cordis/commands"), Project(".x/commands"), User("/h/.cordis/commands"), User("/h/.x/commands")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if p := Project(".x/a").In("/p"); p != "/p/.x/a" {
		t.Errorf("project In = %q", p)
	}
	if p := User("/h/a").In("/p"); p != "/h/a" {
		t.Errorf("user In = %q", p)
	}
}

// TestAbove: an UpToRepo source's copies above the cwd go up to the
// repository's root, nearest first; outside a repository, at its root or
// for another source there are none.
func TestAbove(t *testing.T) {
	repo := t.TempDir()
	cwd := filepath.Join(repo, "a", "b")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	src := ProjectUpToRepo(".agents/skills")
	if paths, root := src.Above(cwd); paths != nil || root != "" {
		t.Errorf("outside a repository: %v %q", paths, root)
	}
	if err := os.WriteFile(filepath.Join(repo, ".git"), []byte("gitdir: elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	paths, root := src.Above(cwd)
	want := []string{filepath.Join(repo, "a", ".agents/skills"), filepath.Join(repo, ".agents/skills")}
	if diff := cmp.Diff(want, paths); diff != "" || root != repo {
		t.Errorf("root %q, paths (-want +got):\n%s", root, diff)
	}
	if paths, _ := src.Above(repo); paths != nil {
		t.Errorf("at the root: %v", paths)
	}
	if paths, _ := Project(".agents/skills").Above(cwd); paths != nil {
		t.Errorf("a plain project source: %v", paths)
	}
}
