package tools

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Edit and Write show the diff they would make before they run, without
// writing, and the diff is the one Run then reports.
func TestPreviewShowsTheChangeWithoutWriting(t *testing.T) {
	env := newEnv(t)
	existing := filepath.Join(env.Cwd, "a.txt")
	writeFile(t, existing, "one\ntwo\n")
	fresh := filepath.Join(env.Cwd, "sub", "new.txt")
	ctx := context.Background()
	tests := []struct {
		tool  string
		input any
		want  []Diff
	}{
		{"Edit", map[string]any{"file_path": existing, "old_string": "two", "new_string": "2"},
			[]Diff{{Path: existing, OldText: ptr("one\ntwo\n"), NewText: "one\n2\n"}}},
		{"Write", map[string]any{"file_path": existing, "content": "new\n"},
			[]Diff{{Path: existing, OldText: ptr("one\ntwo\n"), NewText: "new\n"}}},
		{"Write", map[string]any{"file_path": fresh, "content": "hello\n"},
			[]Diff{{Path: fresh, NewText: "hello\n"}}},
		// Nothing sensible to show: the call reports the problem itself.
		{"Edit", map[string]any{"file_path": existing, "old_string": "absent", "new_string": "x"}, nil},
		{"Edit", map[string]any{"file_path": "/etc/hosts", "old_string": "a", "new_string": "b"}, nil},
		{"Write", `{"file_path": 3}`, nil},
	}
	for _, tt := range tests {
		tool, _ := ByName(Builtin(), tt.tool)
		got := tool.(Previewer).Preview(ctx, env, raw(t, tt.input))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s %v (-want +got):\n%s", tt.tool, tt.input, diff)
		}
	}
	if got := readFile(t, existing); got != "one\ntwo\n" {
		t.Errorf("a preview wrote the file: %q", got)
	}
	if _, err := os.Stat(filepath.Dir(fresh)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a preview created the new file's directory (stat: %v)", err)
	}

	res := run(t, env, "Edit", map[string]any{"file_path": existing, "old_string": "two", "new_string": "2"})
	if diff := cmp.Diff(tests[0].want, res.Diffs); diff != "" {
		t.Errorf("Run's diff differs from the preview (-preview +run):\n%s", diff)
	}
}

// Through the editor's file system, the preview reads what Run reads.
func TestPreviewReadsThroughTheEditor(t *testing.T) {
	env := newEnv(t)
	path := filepath.Join(env.Cwd, "b.txt")
	writeFile(t, path, "on disk\n")
	editor := &fakeFS{files: map[string]string{path: "in the editor\n"}}
	env.FS = editor
	tool, _ := ByName(Builtin(), "Write")
	got := tool.(Previewer).Preview(context.Background(), env, raw(t, map[string]any{"file_path": path, "content": "x\n"}))
	want := []Diff{{Path: path, OldText: ptr("in the editor\n"), NewText: "x\n"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if editor.files[path] != "in the editor\n" {
		t.Errorf("the preview wrote through the editor: %q", editor.files[path])
	}
}
