package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	env := newEnv(t)
	root := env.Cwd
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "sub", "a.txt"), "a")
	writeFile(t, filepath.Join(outside, "secret.txt"), "s")
	mustSymlink(t, outside, filepath.Join(root, "escape"))
	mustSymlink(t, filepath.Join(root, "sub"), filepath.Join(root, "inner"))
	mustSymlink(t, filepath.Join(outside, "missing"), filepath.Join(root, "dangling"))
	mustSymlink(t, "../..", filepath.Join(root, "sub", "up"))

	tests := []struct {
		name    string
		path    string
		want    string // "" when an error is expected
		wantErr string
	}{
		{"absolute inside", filepath.Join(root, "sub", "a.txt"), filepath.Join(root, "sub", "a.txt"), ""},
		{"the root itself", root, root, ""},
		{"not yet existing file", filepath.Join(root, "new", "b.txt"), filepath.Join(root, "new", "b.txt"), ""},
		{"relative resolves against cwd", "sub/a.txt", filepath.Join(root, "sub", "a.txt"), ""},
		{"cleaned", root + "/sub/./a.txt", filepath.Join(root, "sub", "a.txt"), ""},
		{"symlink inside root keeps the given path", filepath.Join(root, "inner", "a.txt"), filepath.Join(root, "inner", "a.txt"), ""},
		{"dotdot inside root", filepath.Join(root, "sub") + "/../sub/a.txt", filepath.Join(root, "sub", "a.txt"), ""},
		{"outside", filepath.Join(outside, "secret.txt"), "", "is outside the session's directories (" + root + ")"},
		{"dotdot escape", root + "/../" + filepath.Base(outside) + "/secret.txt", "", "is outside the session's directories"},
		{"relative dotdot escape", "../x", "", "is outside the session's directories"},
		{"symlink escape", filepath.Join(root, "escape", "secret.txt"), "", "is outside the session's directories"},
		{"symlink escape to a new file", filepath.Join(root, "escape", "new.txt"), "", "is outside the session's directories"},
		{"dangling symlink escape", filepath.Join(root, "dangling"), "", "is outside the session's directories"},
		{"relative symlink escape", filepath.Join(root, "sub", "up", "x"), "", "is outside the session's directories"},
		{"empty", "", "", "the path is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := env.Resolve(tt.path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Resolve(%q) = %q, %v; want error containing %q", tt.path, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Resolve(%q) = %q, %v; want %q", tt.path, got, err, tt.want)
			}
		})
	}
}

func TestResolveSeveralRoots(t *testing.T) {
	env := newEnv(t)
	extra, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(extra, "x.txt")
	if _, err := env.Resolve(p); err == nil {
		t.Fatalf("Resolve(%q) succeeded before the root was added", p)
	}
	env.Roots = append(env.Roots, extra)
	if got, err := env.Resolve(p); err != nil || got != p {
		t.Fatalf("Resolve(%q) = %q, %v", p, got, err)
	}
	// A sibling whose name extends the root is not inside it.
	if _, err := env.Resolve(extra + "-other/x"); err == nil {
		t.Fatalf("Resolve accepted a sibling directory of a root")
	}
}

func TestResolveRelativeWithoutCwd(t *testing.T) {
	env := &Env{Roots: []string{"/"}}
	if _, err := env.Resolve("a.txt"); err == nil || !strings.Contains(err.Error(), "is not absolute") {
		t.Fatalf("err = %v", err)
	}
}

// TestToolsRefuseOutsidePaths checks that every file tool goes through
// Resolve.
func TestToolsRefuseOutsidePaths(t *testing.T) {
	env := newEnv(t)
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	target := filepath.Join(outside, "f.txt")
	writeFile(t, target, "hello\n")
	mustSymlink(t, outside, filepath.Join(env.Cwd, "link"))
	via := filepath.Join(env.Cwd, "link", "f.txt")
	cases := []struct {
		tool  string
		input any
	}{
		{"Read", map[string]any{"file_path": target}},
		{"Read", map[string]any{"file_path": via}},
		{"Write", map[string]any{"file_path": via, "content": "x"}},
		{"Edit", map[string]any{"file_path": via, "old_string": "hello", "new_string": "bye"}},
		{"Glob", map[string]any{"pattern": "*", "path": outside}},
		{"Glob", map[string]any{"pattern": outside + "/*.txt"}},
		{"Glob", map[string]any{"pattern": "../**"}},
		{"Grep", map[string]any{"pattern": "hello", "path": via}},
	}
	for _, c := range cases {
		res := run(t, env, c.tool, c.input)
		if !res.IsError || !strings.Contains(res.Text, "outside the session's directories") {
			t.Errorf("%s %v: %+v", c.tool, c.input, res)
		}
	}
	if got := readFile(t, target); got != "hello\n" {
		t.Errorf("outside file changed to %q", got)
	}
	// Grep does not follow a symlink out of the roots while walking.
	res := run(t, env, "Grep", map[string]any{"pattern": "hello"})
	if res.IsError || res.Text != "No matches found." {
		t.Errorf("Grep over a tree with an escaping symlink: %+v", res)
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
