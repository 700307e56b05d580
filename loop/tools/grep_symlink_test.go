package tools

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSymlinksAsRipgrep holds Grep and Glob to ripgrep's default policy
// (rg 13 without -L, checked by hand on this tree): a symlink met while
// walking is neither searched, listed nor followed, to a file or to a
// directory, and a broken one is no error; a symlink named as the path
// is followed, to a file (Grep) or to a directory (Grep and Glob).
func TestSymlinksAsRipgrep(t *testing.T) {
	env := newEnv(t)
	writeFile(t, filepath.Join(env.Cwd, "real", "a.txt"), "needle\n")
	writeFile(t, filepath.Join(env.Cwd, "other", "b.txt"), "needle\n")
	mustSymlink(t, filepath.Join("real", "a.txt"), filepath.Join(env.Cwd, "link.txt"))
	mustSymlink(t, "real", filepath.Join(env.Cwd, "linkdir"))
	mustSymlink(t, filepath.Join(env.Cwd, "missing"), filepath.Join(env.Cwd, "broken.txt"))

	lines := func(text string) []string {
		var out []string
		for _, l := range strings.Split(text, "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "Found ") && !strings.HasPrefix(l, "(") && !strings.HasPrefix(l, "No files found") {
				out = append(out, filepath.ToSlash(l))
			}
		}
		slices.Sort(out)
		return out
	}
	check := func(what string, res Result, want ...string) {
		t.Helper()
		if res.IsError {
			t.Errorf("%s: error %q", what, res.Text)
			return
		}
		if got := lines(res.Text); !slices.Equal(got, want) {
			t.Errorf("%s: got %q, want %q (whole result %q)", what, got, want, res.Text)
		}
	}
	check("Grep walking the tree", run(t, env, "Grep", map[string]any{"pattern": "needle"}), "other/b.txt", "real/a.txt")
	check("Grep content walking the tree", run(t, env, "Grep", map[string]any{"pattern": "needle", "output_mode": "content"}), "other/b.txt:1:needle", "real/a.txt:1:needle")
	check("Glob walking the tree", run(t, env, "Glob", map[string]any{"pattern": "**/*.txt"}), "other/b.txt", "real/a.txt")
	check("Glob of the link names", run(t, env, "Glob", map[string]any{"pattern": "link*"}))

	check("Grep of a file link named as the path", run(t, env, "Grep", map[string]any{"pattern": "needle", "path": filepath.Join(env.Cwd, "link.txt")}), "link.txt")
	check("Grep of a directory link named as the path", run(t, env, "Grep", map[string]any{"pattern": "needle", "path": filepath.Join(env.Cwd, "linkdir")}), "linkdir/a.txt")
	check("Glob of a directory link named as the path", run(t, env, "Glob", map[string]any{"pattern": "*.txt", "path": filepath.Join(env.Cwd, "linkdir")}), "linkdir/a.txt")
}

// TestGrepOrderIsDeterministic: files searched in parallel, each opened
// through its directory's handle, come back in path order, the same on
// every call, in every output mode.
func TestGrepOrderIsDeterministic(t *testing.T) {
	env := newEnv(t)
	var want []string
	for d := range 6 {
		for f := range 40 {
			rel := filepath.Join("pkg"+string(rune('a'+d)), "sub", "file"+string(rune('a'+f%26))+string(rune('a'+f/26))+".txt")
			writeFile(t, filepath.Join(env.Cwd, rel), "one\nneedle here\nthree\n")
			want = append(want, filepath.ToSlash(rel)+":2:needle here")
		}
	}
	slices.Sort(want)
	first := ""
	for range 5 {
		res := run(t, env, "Grep", map[string]any{"pattern": "needle", "output_mode": "content"})
		if res.IsError {
			t.Fatal(res.Text)
		}
		got := strings.Split(strings.TrimSpace(res.Text), "\n")
		if !slices.Equal(got, want) {
			t.Fatalf("got %d lines, want %d in path order:\n%s", len(got), len(want), res.Text)
		}
		if first == "" {
			first = res.Text
		} else if res.Text != first {
			t.Fatal("two calls answered differently")
		}
	}
	res := run(t, env, "Grep", map[string]any{"pattern": "needle", "head_limit": 300})
	if got := strings.Count(res.Text, ".txt"); got != len(want) || !strings.Contains(res.Text, "pkga/sub/fileaa.txt\npkga/sub/fileab.txt") {
		t.Errorf("files_with_matches listed %d files (want %d) or out of order:\n%s", got, len(want), res.Text)
	}
}
