package tools

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGrep(t *testing.T) {
	env := newEnv(t)
	layout := map[string]string{
		"a.go":           "package a\n\nfunc Alpha() {}\n// TODO: alpha\nfunc beta() {}\n",
		"b/b.go":         "package b\n\nfunc Beta() {}\n",
		"b/notes.md":     "# Notes\nTODO: write more\n",
		"c.py":           "def alpha():\n    pass\n",
		"ctx.txt":        "1\n2\nhit one\n4\n5\n6\nhit two\n8\nhit three\n10\n11\n12\n",
		"win.txt":        "hit\r\nmiss\r\n",
		"bin.dat":        "hit\x00binary",
		"vendor/v.go":    "func Alpha() {}\n",
		"node/x/skip.go": "func Alpha() {}\n",
		".git/HEAD":      "func Alpha() {}\n",
		".gitignore":     "vendor/\n/node\n*.log\n",
		"debug.log":      "func Alpha() {}\n",
		"b/.gitignore":   "notes.md\n!keep.md\n",
		"b/keep.md":      "TODO: kept\n",
		"multi.txt":      "start\nmiddle\nend\nstart\nend\n",
	}
	for p, c := range layout {
		writeFile(t, filepath.Join(env.Cwd, p), c)
	}
	// Results name files relative to the working directory.
	p := func(rel string) string { return rel }
	lines := func(ls ...string) string { return strings.Join(ls, "\n") }

	tests := []struct {
		name  string
		input map[string]any
		want  string
	}{
		{"files_with_matches by default, sorted, ignores respected",
			map[string]any{"pattern": "func [A-Z]"},
			lines("Found 2 files", p("a.go"), p("b/b.go"))},
		{"case-insensitive",
			map[string]any{"pattern": "alpha", "-i": true},
			lines("Found 2 files", p("a.go"), p("c.py"))},
		{"content with line numbers",
			map[string]any{"pattern": "alpha", "-i": true, "output_mode": "content"},
			lines(p("a.go")+":3:func Alpha() {}", p("a.go")+":4:// TODO: alpha", p("c.py")+":1:def alpha():")},
		{"content without line numbers",
			map[string]any{"pattern": "TODO", "output_mode": "content", "-n": false},
			lines(p("a.go")+":// TODO: alpha", p("b/keep.md")+":TODO: kept")},
		{"context merges and separates groups",
			map[string]any{"pattern": "hit", "path": p("ctx.txt"), "output_mode": "content", "-C": 1},
			lines(
				p("ctx.txt")+"-2-2", p("ctx.txt")+":3:hit one", p("ctx.txt")+"-4-4",
				"--",
				p("ctx.txt")+"-6-6", p("ctx.txt")+":7:hit two", p("ctx.txt")+"-8-8", p("ctx.txt")+":9:hit three", p("ctx.txt")+"-10-10")},
		{"-A and -B override -C",
			map[string]any{"pattern": "hit two", "path": p("ctx.txt"), "output_mode": "content", "-C": 3, "-A": 1},
			lines(p("ctx.txt")+"-4-4", p("ctx.txt")+"-5-5", p("ctx.txt")+"-6-6", p("ctx.txt")+":7:hit two", p("ctx.txt")+"-8-8")},
		{"-B only",
			map[string]any{"pattern": "hit one", "path": p("ctx.txt"), "output_mode": "content", "-B": 2},
			lines(p("ctx.txt")+"-1-1", p("ctx.txt")+"-2-2", p("ctx.txt")+":3:hit one")},
		{"count",
			map[string]any{"pattern": "hit", "output_mode": "count"},
			lines(p("ctx.txt")+":3", p("win.txt")+":1", "", "Found 4 matching lines in 2 files")},
		{"CRLF lines and $",
			map[string]any{"pattern": "^hit$", "output_mode": "content"},
			lines(p("win.txt") + ":1:hit")},
		{"glob filter on names",
			map[string]any{"pattern": "TODO", "glob": "*.md"},
			lines("Found 1 file", p("b/keep.md"))},
		{"glob filter with braces",
			map[string]any{"pattern": "alpha", "-i": true, "glob": "**/*.{py,rb}"},
			lines("Found 1 file", p("c.py"))},
		{"glob filter on paths",
			map[string]any{"pattern": "func", "glob": "b/*.go"},
			lines("Found 1 file", p("b/b.go"))},
		{"type filter",
			map[string]any{"pattern": "alpha", "-i": true, "type": "py"},
			lines("Found 1 file", p("c.py"))},
		{"path is a directory",
			map[string]any{"pattern": "func", "path": "b"},
			lines("Found 1 file", p("b/b.go"))},
		{"head_limit",
			map[string]any{"pattern": "hit", "path": p("ctx.txt"), "output_mode": "content", "head_limit": 2},
			lines(p("ctx.txt")+":3:hit one", p("ctx.txt")+":7:hit two", "", "(1 more line not shown. Narrow the search with path, glob or type, or page with head_limit.)")},
		{"multiline",
			map[string]any{"pattern": "start.*?end", "path": p("multi.txt"), "multiline": true, "output_mode": "content"},
			lines(p("multi.txt")+":1:start", p("multi.txt")+":2:middle", p("multi.txt")+":3:end", p("multi.txt")+":4:start", p("multi.txt")+":5:end")},
		{"multiline count counts matches",
			map[string]any{"pattern": "start.*?end", "path": p("multi.txt"), "multiline": true, "output_mode": "count"},
			lines(p("multi.txt")+":2", "", "Found 2 matches in 1 file")},
		{"without multiline a pattern stays in its line",
			map[string]any{"pattern": `start\s+middle`, "path": p("multi.txt")},
			"No matches found."},
		{"binary files are skipped",
			map[string]any{"pattern": "binary"},
			"No matches found."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, env, "Grep", tt.input)
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
		{map[string]any{"pattern": "a(b"}, "Grep: invalid regular expression \"a(b\": missing closing ): `a(b`"},
		{map[string]any{"pattern": "x", "output_mode": "lines"}, `Grep: output_mode must be content, files_with_matches or count, not "lines"`},
		{map[string]any{"pattern": "x", "type": "cobol"}, `Grep: unknown file type "cobol"; known types: c, cpp,`},
		{map[string]any{"pattern": "x", "path": p("missing")}, "Grep: " + filepath.Join(env.Cwd, "missing") + " does not exist"},
	} {
		res := run(t, env, "Grep", tt.input)
		if !res.IsError || !strings.HasPrefix(res.Text, tt.want) {
			t.Errorf("%v: %+v", tt.input, res)
		}
	}
}

func TestGrepOutputCap(t *testing.T) {
	env := newEnv(t)
	env.OutputLimit = 100
	writeFile(t, filepath.Join(env.Cwd, "f.txt"), strings.Repeat("match\n", 50))
	res := run(t, env, "Grep", map[string]any{"pattern": "match", "output_mode": "content", "-n": false})
	got := strings.Split(res.Text, "\n")
	prefix := "f.txt:match"
	n := 0
	for _, l := range got {
		if l == prefix {
			n++
		}
	}
	wantNote := "(" + strconv.Itoa(50-n) + " more lines not shown (output cut at 100 bytes). Narrow the search with path, glob or type, or page with head_limit.)"
	if n == 0 || n >= 50 || got[len(got)-1] != wantNote {
		t.Errorf("%d lines kept, text %q", n, res.Text)
	}
}

func TestGrepDescribe(t *testing.T) {
	env := newEnv(t)
	tool, _ := ByName(Builtin(), "Grep")
	d := tool.Describe(env, raw(t, map[string]any{"pattern": "func main", "path": "cmd", "glob": "*.go"}))
	want := Description{Title: `Grep "func main" in cmd (*.go)`, Locations: []Location{{Path: filepath.Join(env.Cwd, "cmd")}}}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
