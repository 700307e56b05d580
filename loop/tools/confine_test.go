package tools

import (
	"path/filepath"
	"strings"
	"testing"
)

// Opening through the session's directories (internal/confine) keeps the
// links that stay inside working, absolute ones included (os.Root alone
// refuses those), and a link from the cwd into an extra directory.
func TestLinksInsideTheSessionStillWork(t *testing.T) {
	env := newEnv(t)
	extra := newEnv(t).Cwd
	env.Roots = append(env.Roots, extra)
	writeFile(t, filepath.Join(env.Cwd, "AGENTS.md"), "agents rules\n")
	writeFile(t, filepath.Join(extra, "shared", "notes.md"), "shared notes\n")
	mustSymlink(t, "AGENTS.md", filepath.Join(env.Cwd, "CLAUDE.md"))
	mustSymlink(t, filepath.Join(env.Cwd, "AGENTS.md"), filepath.Join(env.Cwd, "absolute.md"))
	mustSymlink(t, filepath.Join(extra, "shared"), filepath.Join(env.Cwd, "shared"))

	for name, want := range map[string]string{"CLAUDE.md": "agents rules", "absolute.md": "agents rules", "shared/notes.md": "shared notes"} {
		res := run(t, env, "Read", map[string]any{"file_path": filepath.Join(env.Cwd, name)})
		if res.IsError || !strings.Contains(res.Text, want) {
			t.Errorf("Read %s: %+v", name, res)
		}
	}
	res := run(t, env, "Edit", map[string]any{"file_path": filepath.Join(env.Cwd, "absolute.md"), "old_string": "agents", "new_string": "edited"})
	if res.IsError || readFile(t, filepath.Join(env.Cwd, "AGENTS.md")) != "edited rules\n" {
		t.Errorf("Edit through an absolute link: %+v", res)
	}
	res = run(t, env, "Write", map[string]any{"file_path": filepath.Join(env.Cwd, "shared", "new", "n.md"), "content": "new\n"})
	if res.IsError || readFile(t, filepath.Join(extra, "shared", "new", "n.md")) != "new\n" {
		t.Errorf("Write into the extra directory through a link: %+v", res)
	}
	// A link named as the path is followed (links met while walking are
	// not, as in ripgrep: TestSymlinksAsRipgrep).
	res = run(t, env, "Grep", map[string]any{"pattern": "rules", "path": filepath.Join(env.Cwd, "CLAUDE.md")})
	if res.IsError || !strings.Contains(res.Text, "CLAUDE.md") {
		t.Errorf("Grep of a file link named as the path: %+v", res)
	}
	res = run(t, env, "Glob", map[string]any{"pattern": "**/*.md", "path": filepath.Join(env.Cwd, "shared")})
	if res.IsError || !strings.Contains(res.Text, "shared/new/n.md") {
		t.Errorf("Glob below a link into the extra directory: %+v", res)
	}
}
