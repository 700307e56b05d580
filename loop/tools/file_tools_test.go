package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRead(t *testing.T) {
	env := newEnv(t)
	p := filepath.Join(env.Cwd, "f.txt")
	writeFile(t, p, "alpha\nbeta\r\ngamma\ndelta\n")
	var many strings.Builder
	for i := 1; i <= 2500; i++ {
		fmt.Fprintf(&many, "line %d\n", i)
	}
	big := filepath.Join(env.Cwd, "big.txt")
	writeFile(t, big, many.String())
	long := filepath.Join(env.Cwd, "long.txt")
	writeFile(t, long, "short\n"+strings.Repeat("é", 2500)+"\n")
	writeFile(t, filepath.Join(env.Cwd, "empty.txt"), "")
	writeFile(t, filepath.Join(env.Cwd, "noeol.txt"), "one\ntwo")
	writeFile(t, filepath.Join(env.Cwd, "bin.dat"), "ab\x00cd")
	writeFile(t, filepath.Join(env.Cwd, "pic.png"), "\x89PNG\r\n\x1a\n")

	tests := []struct {
		name    string
		input   map[string]any
		want    string
		wantErr bool
	}{
		{"whole file", map[string]any{"file_path": p},
			"     1\talpha\n     2\tbeta\n     3\tgamma\n     4\tdelta", false},
		{"offset and limit", map[string]any{"file_path": p, "offset": 2, "limit": 2},
			"     2\tbeta\n     3\tgamma\n\n(Showing lines 2-3 of 4. Use offset and limit to read more.)", false},
		{"offset to the end", map[string]any{"file_path": p, "offset": 4},
			"     4\tdelta", false},
		{"offset past the end", map[string]any{"file_path": p, "offset": 9},
			"(" + p + " has 4 lines; offset 9 is past the end)", false},
		{"relative path", map[string]any{"file_path": "noeol.txt"},
			"     1\tone\n     2\ttwo", false},
		{"empty file", map[string]any{"file_path": filepath.Join(env.Cwd, "empty.txt")},
			"(" + filepath.Join(env.Cwd, "empty.txt") + " exists but is empty)", false},
		{"directory", map[string]any{"file_path": env.Cwd},
			"Read: " + env.Cwd + " is a directory, not a file. Use Glob to find files in it, or Bash with ls to list it.", true},
		{"missing", map[string]any{"file_path": filepath.Join(env.Cwd, "nope.txt")},
			"Read: file " + filepath.Join(env.Cwd, "nope.txt") + " does not exist", true},
		{"binary", map[string]any{"file_path": filepath.Join(env.Cwd, "bin.dat")},
			"Read: " + filepath.Join(env.Cwd, "bin.dat") + " is a binary file (5 bytes); only text files can be read", true},
		{"image without a header", map[string]any{"file_path": filepath.Join(env.Cwd, "pic.png")},
			"Read: " + filepath.Join(env.Cwd, "pic.png") + " starts like a PNG image but its header is damaged or truncated (no IHDR chunk); it cannot be sent to the model.", true},
		{"negative offset", map[string]any{"file_path": p, "offset": -1},
			"Read: offset and limit must be positive", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, env, "Read", tt.input)
			if res.IsError != tt.wantErr {
				t.Errorf("IsError = %v", res.IsError)
			}
			if diff := cmp.Diff(tt.want, res.Text); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("default limit is 2000 lines", func(t *testing.T) {
		res := run(t, env, "Read", map[string]any{"file_path": big})
		lines := strings.Split(res.Text, "\n")
		if lines[0] != "     1\tline 1" || lines[1999] != "  2000\tline 2000" {
			t.Errorf("first/last lines %q / %q", lines[0], lines[1999])
		}
		if got := lines[len(lines)-1]; got != "(Showing lines 1-2000 of 2500. Use offset and limit to read more.)" {
			t.Errorf("note %q", got)
		}
		if len(lines) != 2002 {
			t.Errorf("%d lines", len(lines))
		}
	})
	t.Run("long lines are truncated", func(t *testing.T) {
		res := run(t, env, "Read", map[string]any{"file_path": long})
		want := "     1\tshort\n     2\t" + strings.Repeat("é", 2000) + "… [line truncated]\n\n(1 line longer than 2000 characters was truncated.)"
		if diff := cmp.Diff(want, res.Text); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("locations and describe", func(t *testing.T) {
		res := run(t, env, "Read", map[string]any{"file_path": p, "offset": 3})
		if diff := cmp.Diff([]Location{{Path: p, Line: 3}}, res.Locations); diff != "" {
			t.Errorf("locations (-want +got):\n%s", diff)
		}
		tool, _ := ByName(Builtin(), "Read")
		d := tool.Describe(env, raw(t, map[string]any{"file_path": p, "offset": 10, "limit": 20}))
		want := Description{Title: "Read f.txt (lines 10-29)", Locations: []Location{{Path: p, Line: 10}}}
		if diff := cmp.Diff(want, d); diff != "" {
			t.Errorf("describe (-want +got):\n%s", diff)
		}
		d = tool.Describe(env, raw(t, map[string]any{"file_path": "/elsewhere/x.go"}))
		if d.Title != "Read /elsewhere/x.go" {
			t.Errorf("title %q", d.Title)
		}
	})
}

func TestWrite(t *testing.T) {
	env := newEnv(t)
	p := filepath.Join(env.Cwd, "dir", "sub", "new.txt")

	res := run(t, env, "Write", map[string]any{"file_path": p, "content": "one\ntwo\n"})
	want := Result{
		Text:      "Created " + p + " (2 lines).",
		Diffs:     []Diff{{Path: p, OldText: nil, NewText: "one\ntwo\n"}},
		Locations: []Location{{Path: p}},
	}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("new file (-want +got):\n%s", diff)
	}
	if got := readFile(t, p); got != "one\ntwo\n" {
		t.Errorf("content %q", got)
	}

	res = run(t, env, "Write", map[string]any{"file_path": p, "content": "three"})
	want = Result{
		Text:      "Updated " + p + " (1 line).",
		Diffs:     []Diff{{Path: p, OldText: ptr("one\ntwo\n"), NewText: "three"}},
		Locations: []Location{{Path: p}},
	}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("existing file (-want +got):\n%s", diff)
	}
	if got := readFile(t, p); got != "three" {
		t.Errorf("content %q", got)
	}

	res = run(t, env, "Write", map[string]any{"file_path": env.Cwd, "content": "x"})
	if !res.IsError || res.Text != "Write: "+env.Cwd+" is a directory, not a file" {
		t.Errorf("directory: %+v", res)
	}
}

func TestEdit(t *testing.T) {
	const original = "package main\n\nfunc a() { x := 1 }\nfunc b() { x := 1 }\nfunc c() {}\n"
	tests := []struct {
		name     string
		input    map[string]any
		wantText string
		wantErr  bool
		wantFile string // expected content afterwards
		wantLine int
	}{
		{"unique", map[string]any{"old_string": "func c() {}", "new_string": "func c() { return }"},
			"Edited %s: replaced 1 occurrence at line 5.", false,
			"package main\n\nfunc a() { x := 1 }\nfunc b() { x := 1 }\nfunc c() { return }\n", 5},
		{"ambiguous", map[string]any{"old_string": "x := 1", "new_string": "x := 2"},
			"Edit: old_string occurs 2 times in %s. Add surrounding lines to make it unique, or set replace_all to replace every occurrence.", true,
			original, 0},
		{"replace all", map[string]any{"old_string": "x := 1", "new_string": "x := 2", "replace_all": true},
			"Edited %s: replaced 2 occurrences (the first at line 3).", false,
			"package main\n\nfunc a() { x := 2 }\nfunc b() { x := 2 }\nfunc c() {}\n", 3},
		{"not found", map[string]any{"old_string": "func d()", "new_string": "func e()"},
			"Edit: old_string was not found in %s. Read the file again and copy the text exactly, including whitespace and indentation.", true,
			original, 0},
		{"identical", map[string]any{"old_string": "func c", "new_string": "func c"},
			"Edit: old_string and new_string are identical; there is nothing to change", true,
			original, 0},
		{"empty old_string", map[string]any{"old_string": "", "new_string": "x"},
			"Edit: old_string is empty; give the exact text to replace (use Write to create or overwrite a whole file)", true,
			original, 0},
		{"deletion", map[string]any{"old_string": "\nfunc c() {}", "new_string": ""},
			"Edited %s: replaced 1 occurrence at line 4.", false,
			"package main\n\nfunc a() { x := 1 }\nfunc b() { x := 1 }\n", 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t)
			p := filepath.Join(env.Cwd, "main.go")
			writeFile(t, p, original)
			tt.input["file_path"] = p
			res := run(t, env, "Edit", tt.input)
			wantText := tt.wantText
			if strings.Contains(wantText, "%s") {
				wantText = fmt.Sprintf(wantText, p)
			}
			if res.Text != wantText || res.IsError != tt.wantErr {
				t.Errorf("got %q (error %v), want %q (error %v)", res.Text, res.IsError, wantText, tt.wantErr)
			}
			if got := readFile(t, p); got != tt.wantFile {
				t.Errorf("file (-want +got):\n%s", cmp.Diff(tt.wantFile, got))
			}
			if tt.wantErr {
				if res.Diffs != nil || res.Locations != nil {
					t.Errorf("error result has diffs or locations: %+v", res)
				}
				return
			}
			want := Result{
				Text:      wantText,
				Diffs:     []Diff{{Path: p, OldText: ptr(original), NewText: tt.wantFile}},
				Locations: []Location{{Path: p, Line: tt.wantLine}},
			}
			if diff := cmp.Diff(want, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("missing file", func(t *testing.T) {
		env := newEnv(t)
		p := filepath.Join(env.Cwd, "nope.go")
		res := run(t, env, "Edit", map[string]any{"file_path": p, "old_string": "a", "new_string": "b"})
		if !res.IsError || res.Text != "Edit: file "+p+" does not exist (use Write to create it)" {
			t.Errorf("%+v", res)
		}
		if _, err := os.Stat(p); err == nil {
			t.Errorf("Edit created the file")
		}
	})
	t.Run("CRLF file edited with LF strings", func(t *testing.T) {
		env := newEnv(t)
		p := filepath.Join(env.Cwd, "win.txt")
		writeFile(t, p, "one\r\ntwo\r\nthree\r\n")
		res := run(t, env, "Edit", map[string]any{"file_path": p, "old_string": "one\ntwo", "new_string": "1\n2"})
		if res.IsError {
			t.Fatalf("%+v", res)
		}
		if got := readFile(t, p); got != "1\r\n2\r\nthree\r\n" {
			t.Errorf("file %q", got)
		}
	})
}

// TestFileToolsUseFS checks that Read, Write and Edit go through Env.FS
// when it is set, and never write the local disk.
func TestFileToolsUseFS(t *testing.T) {
	env := newEnv(t)
	p := filepath.Join(env.Cwd, "buf.go")
	fsys := &fakeFS{files: map[string]string{p: "unsaved\nbuffer\n"}}
	env.FS = fsys

	res := run(t, env, "Read", map[string]any{"file_path": p})
	if res.Text != "     1\tunsaved\n     2\tbuffer" {
		t.Errorf("Read: %q", res.Text)
	}
	res = run(t, env, "Edit", map[string]any{"file_path": p, "old_string": "unsaved", "new_string": "saved"})
	if res.IsError {
		t.Fatalf("Edit: %+v", res)
	}
	newFile := filepath.Join(env.Cwd, "made", "new.go")
	res = run(t, env, "Write", map[string]any{"file_path": newFile, "content": "x"})
	if res.IsError || res.Diffs[0].OldText != nil {
		t.Fatalf("Write: %+v", res)
	}
	// A new file (missing on disk) is written without reading it first.
	wantCalls := []string{"read " + p, "read " + p, "write " + p, "write " + newFile}
	if diff := cmp.Diff(wantCalls, fsys.calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	wantFiles := map[string]string{p: "saved\nbuffer\n", newFile: "x"}
	if diff := cmp.Diff(wantFiles, fsys.files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	for _, f := range []string{p, newFile} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s was written to the local disk", f)
		}
	}
}
