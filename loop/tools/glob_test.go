package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// touch sets a file's modification time to base plus minutes.
func touch(t *testing.T, path string, minutes int) {
	t.Helper()
	at := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(minutes) * time.Minute)
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

func TestGlob(t *testing.T) {
	env := newEnv(t)
	files := map[string]int{ // path -> mtime offset in minutes
		"main.go":              1,
		"cmd/tool/main.go":     5,
		"internal/a/a.go":      3,
		"internal/a/a_test.go": 3,
		"internal/b.txt":       9,
		"web/app.ts":           2,
		"web/app.tsx":          4,
		".git/config.go":       10,
		"build/gen.go":         11,
		"sub/.gitignore":       0,
		"sub/keep.go":          6,
		"sub/skip.go":          7,
		".hidden/x.go":         8,
	}
	for p, m := range files {
		content := ""
		if p == "sub/.gitignore" {
			content = "skip.go\n"
		}
		abs := filepath.Join(env.Cwd, p)
		writeFile(t, abs, content)
		touch(t, abs, m)
	}
	writeFile(t, filepath.Join(env.Cwd, ".gitignore"), "# generated\nbuild/\n")
	abs := func(ps ...string) string {
		var out []string
		for _, p := range ps {
			out = append(out, filepath.Join(env.Cwd, p))
		}
		return strings.Join(out, "\n")
	}
	// Results name files relative to the working directory.
	rel := func(ps ...string) string { return strings.Join(ps, "\n") }

	tests := []struct {
		name  string
		input map[string]any
		want  string
	}{
		{"recursive, newest first, ties by path", map[string]any{"pattern": "**/*.go"},
			rel(".hidden/x.go", "sub/keep.go", "cmd/tool/main.go", "internal/a/a.go", "internal/a/a_test.go", "main.go")},
		{"one level", map[string]any{"pattern": "*.go"}, rel("main.go")},
		{"literal prefix", map[string]any{"pattern": "internal/**/*"},
			rel("internal/b.txt", "internal/a/a.go", "internal/a/a_test.go")},
		{"braces", map[string]any{"pattern": "web/*.{ts,tsx}"}, rel("web/app.tsx", "web/app.ts")},
		{"path", map[string]any{"pattern": "*.go", "path": filepath.Join(env.Cwd, "internal", "a")},
			rel("internal/a/a.go", "internal/a/a_test.go")},
		{"relative path", map[string]any{"pattern": "**/main.go", "path": "cmd"}, rel("cmd/tool/main.go")},
		{"absolute pattern", map[string]any{"pattern": filepath.Join(env.Cwd, "web") + "/*.ts"}, rel("web/app.ts")},
		{"literal file", map[string]any{"pattern": "internal/b.txt"}, rel("internal/b.txt")},
		{"an ignored directory named in the pattern is searched", map[string]any{"pattern": "build/*.go"},
			rel("build/gen.go")},
		{"no match", map[string]any{"pattern": "**/*.rs"},
			"No files found matching \"**/*.rs\" in " + env.Cwd + "."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, env, "Glob", tt.input)
			if res.IsError {
				t.Fatalf("error: %s", res.Text)
			}
			if diff := cmp.Diff(tt.want, res.Text); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}

	for _, tt := range []struct {
		input map[string]any
		want  string
	}{
		{map[string]any{"pattern": "*", "path": filepath.Join(env.Cwd, "main.go")}, "Glob: " + abs("main.go") + " is not a directory"},
		{map[string]any{"pattern": "*", "path": filepath.Join(env.Cwd, "nope")}, "Glob: directory " + abs("nope") + " does not exist"},
		{map[string]any{"pattern": "[a"}, `Glob: invalid pattern "[a": bad pattern segment "[a"`},
	} {
		if res := run(t, env, "Glob", tt.input); !res.IsError || res.Text != tt.want {
			t.Errorf("%v: %+v", tt.input, res)
		}
	}
}

func TestGlobCap(t *testing.T) {
	env := newEnv(t)
	for i := range 1005 {
		p := filepath.Join(env.Cwd, "d", strings.Repeat("x", 1+i%7)+"_"+time.Duration(i).String()+".txt")
		writeFile(t, p, "")
		touch(t, p, 0)
	}
	res := run(t, env, "Glob", map[string]any{"pattern": "**/*.txt"})
	lines := strings.Split(res.Text, "\n")
	if got := lines[len(lines)-1]; got != "(Showing the 100 most recent of 1005 matches; 905 more not shown. Use a more specific pattern or path.)" {
		t.Errorf("note %q", got)
	}
	if len(lines) != 102 {
		t.Errorf("%d lines", len(lines))
	}
	// Equal times: sorted by path.
	if !(lines[0] < lines[1] && lines[98] < lines[99]) {
		t.Errorf("not sorted by path: %q %q", lines[0], lines[1])
	}
}
