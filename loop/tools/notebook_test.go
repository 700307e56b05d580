package tools

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testNotebook is nbformat 4.5 as Jupyter writes it, with notebook
// metadata, a code cell with outputs and a markdown cell holding "<b>".
const testNotebook = `{
 "cells": [
  {
   "cell_type": "code",
   "execution_count": 3,
   "id": "a1",
   "metadata": {"tags": ["setup"]},
   "outputs": [{"name": "stdout", "output_type": "stream", "text": ["hi\n"]}],
   "source": ["import os\n", "print('hi')"]
  },
  {
   "cell_type": "markdown",
   "id": "b2",
   "metadata": {},
   "source": ["# Title <b>bold</b> & more"]
  }
 ],
 "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
 "nbformat": 4,
 "nbformat_minor": 5
}
`

type nbCell struct {
	CellType       string          `json:"cell_type"`
	ID             string          `json:"id"`
	Source         []string        `json:"source"`
	Outputs        json.RawMessage `json:"outputs"`
	ExecutionCount json.RawMessage `json:"execution_count"`
	Metadata       json.RawMessage `json:"metadata"`
}

type nbFile struct {
	Cells    []nbCell        `json:"cells"`
	Metadata json.RawMessage `json:"metadata"`
	Format   int             `json:"nbformat"`
	Minor    int             `json:"nbformat_minor"`
}

func readNotebook(t *testing.T, path string) nbFile {
	t.Helper()
	var nb nbFile
	if err := json.Unmarshal([]byte(readFile(t, path)), &nb); err != nil {
		t.Fatalf("the notebook is no longer valid JSON: %v", err)
	}
	return nb
}

func TestNotebookEdit(t *testing.T) {
	tests := []struct {
		name      string
		input     map[string]any
		wantIDs   []string
		wantTypes []string
		check     func(t *testing.T, nb nbFile)
	}{
		{"replace code cell", map[string]any{"cell_id": "a1", "new_source": "x = 1\ny = 2\n"},
			[]string{"a1", "b2"}, []string{"code", "markdown"}, func(t *testing.T, nb nbFile) {
				if diff := cmp.Diff([]string{"x = 1\n", "y = 2\n"}, nb.Cells[0].Source); diff != "" {
					t.Errorf("source (-want +got):\n%s", diff)
				}
				// The old outputs describe the old source.
				if string(nb.Cells[0].Outputs) != "[]" || string(nb.Cells[0].ExecutionCount) != "null" {
					t.Errorf("outputs %s, execution_count %s; want [] and null", nb.Cells[0].Outputs, nb.Cells[0].ExecutionCount)
				}
				if !strings.Contains(string(nb.Cells[0].Metadata), "setup") {
					t.Errorf("cell metadata lost: %s", nb.Cells[0].Metadata)
				}
			}},
		{"replace changes type", map[string]any{"cell_id": "b2", "new_source": "print(1)", "cell_type": "code"},
			[]string{"a1", "b2"}, []string{"code", "code"}, func(t *testing.T, nb nbFile) {
				if string(nb.Cells[1].Outputs) != "[]" {
					t.Errorf("a cell turned into code has outputs %s", nb.Cells[1].Outputs)
				}
			}},
		{"replace by index", map[string]any{"cell_id": "cell-1", "new_source": "## New"},
			[]string{"a1", "b2"}, []string{"code", "markdown"}, func(t *testing.T, nb nbFile) {
				if diff := cmp.Diff([]string{"## New"}, nb.Cells[1].Source); diff != "" {
					t.Errorf("source (-want +got):\n%s", diff)
				}
			}},
		{"insert after", map[string]any{"cell_id": "a1", "new_source": "Notes", "cell_type": "markdown", "edit_mode": "insert"},
			nil, []string{"code", "markdown", "markdown"}, func(t *testing.T, nb nbFile) {
				if id := nb.Cells[1].ID; id == "" || id == "a1" || id == "b2" {
					t.Errorf("new cell id = %q, want a fresh one", id)
				}
				if nb.Cells[1].Outputs != nil {
					t.Errorf("a markdown cell got outputs")
				}
			}},
		{"insert at top", map[string]any{"new_source": "import sys", "cell_type": "code", "edit_mode": "insert"},
			nil, []string{"code", "code", "markdown"}, func(t *testing.T, nb nbFile) {
				if diff := cmp.Diff([]string{"import sys"}, nb.Cells[0].Source); diff != "" {
					t.Errorf("source (-want +got):\n%s", diff)
				}
			}},
		{"delete", map[string]any{"cell_id": "a1", "new_source": "", "edit_mode": "delete"},
			[]string{"b2"}, []string{"markdown"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t)
			path := filepath.Join(env.Cwd, "nb.ipynb")
			writeFile(t, path, testNotebook)
			tt.input["notebook_path"] = path
			res := run(t, env, "NotebookEdit", tt.input)
			if res.IsError {
				t.Fatalf("error: %s", res.Text)
			}
			nb := readNotebook(t, path)
			var ids, types []string
			for _, c := range nb.Cells {
				ids, types = append(ids, c.ID), append(types, c.CellType)
			}
			if tt.wantIDs != nil {
				if diff := cmp.Diff(tt.wantIDs, ids); diff != "" {
					t.Errorf("cell ids (-want +got):\n%s", diff)
				}
			}
			if diff := cmp.Diff(tt.wantTypes, types); diff != "" {
				t.Errorf("cell types (-want +got):\n%s", diff)
			}
			if !strings.Contains(string(nb.Metadata), "python3") || nb.Format != 4 || nb.Minor != 5 {
				t.Errorf("notebook metadata or format lost: %s %d.%d", nb.Metadata, nb.Format, nb.Minor)
			}
			if tt.check != nil {
				tt.check(t, nb)
			}
			text := readFile(t, path)
			if !strings.HasSuffix(text, "}\n") || strings.Contains(text, `\u003c`) {
				t.Errorf("not written as Jupyter writes (final newline, no HTML escapes):\n%s", text)
			}
			if len(res.Diffs) != 1 || *res.Diffs[0].OldText != testNotebook || res.Diffs[0].NewText != text {
				t.Errorf("the diff shown is not the change made: %+v", res.Diffs)
			}
			// The permission request previews the same change.
			writeFile(t, path, testNotebook)
			preview := notebookEditTool{}.Preview(context.Background(), env, raw(t, tt.input))
			if len(preview) != 1 || preview[0].NewText != text {
				t.Errorf("preview differs from the edit made")
			}
		})
	}
}

func TestNotebookEditErrors(t *testing.T) {
	env := newEnv(t)
	path := filepath.Join(env.Cwd, "nb.ipynb")
	writeFile(t, path, testNotebook)
	writeFile(t, filepath.Join(env.Cwd, "broken.ipynb"), `{"cells": [`)
	writeFile(t, filepath.Join(env.Cwd, "plain.txt"), "x")
	outside := filepath.Join(t.TempDir(), "o.ipynb")
	writeFile(t, outside, testNotebook)
	for _, tt := range []struct {
		input map[string]any
		want  string
	}{
		{map[string]any{"notebook_path": path, "cell_id": "zz", "new_source": "x"}, `no cell has the id "zz" (the notebook has 2 cells)`},
		{map[string]any{"notebook_path": path, "cell_id": "cell-9", "new_source": "x"}, `no cell has the id "cell-9"`},
		{map[string]any{"notebook_path": path, "new_source": "x"}, "cell_id is required to replace a cell"},
		{map[string]any{"notebook_path": path, "cell_id": "a1", "new_source": "x", "edit_mode": "insert"}, "cell_type is required when inserting"},
		{map[string]any{"notebook_path": path, "cell_id": "a1", "new_source": "x", "edit_mode": "move"}, `edit_mode is "move"`},
		{map[string]any{"notebook_path": path, "cell_id": "a1", "new_source": "x", "cell_type": "raw"}, `cell_type is "raw"`},
		{map[string]any{"notebook_path": filepath.Join(env.Cwd, "plain.txt"), "cell_id": "a", "new_source": "x"}, "is not a Jupyter notebook"},
		{map[string]any{"notebook_path": filepath.Join(env.Cwd, "none.ipynb"), "cell_id": "a", "new_source": "x"}, "does not exist"},
		{map[string]any{"notebook_path": filepath.Join(env.Cwd, "broken.ipynb"), "cell_id": "a", "new_source": "x"}, "is not a valid notebook"},
		{map[string]any{"notebook_path": outside, "cell_id": "a1", "new_source": "x"}, "outside the session's directories"},
		{map[string]any{"notebook_path": path, "cell_id": "a1", "new_source": "x", "index": 3}, `unknown input field "index"`},
	} {
		res := run(t, env, "NotebookEdit", tt.input)
		if !res.IsError || !strings.Contains(res.Text, tt.want) {
			t.Errorf("%v: got %q, want an error containing %q", tt.input, res.Text, tt.want)
		}
	}
	if readFile(t, path) != testNotebook || readFile(t, outside) != testNotebook {
		t.Errorf("a failed edit changed a notebook")
	}
}

// A notebook before nbformat 4.5 has no cell ids: a new cell gets none,
// and cells are named by position.
func TestNotebookEditWithoutCellIDs(t *testing.T) {
	env := newEnv(t)
	path := filepath.Join(env.Cwd, "old.ipynb")
	writeFile(t, path, `{"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["a"]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 2}`)
	res := run(t, env, "NotebookEdit", map[string]any{"notebook_path": path, "cell_id": "cell-0", "new_source": "b", "cell_type": "code", "edit_mode": "insert"})
	if res.IsError {
		t.Fatal(res.Text)
	}
	nb := readNotebook(t, path)
	if len(nb.Cells) != 2 || nb.Cells[1].ID != "" || nb.Cells[1].CellType != "code" {
		t.Errorf("cells = %+v", nb.Cells)
	}
	if strings.HasSuffix(readFile(t, path), "\n") {
		t.Errorf("a final newline was added to a file that had none")
	}
}

// Through the editor's file system, the notebook is read and written by
// the editor.
func TestNotebookEditThroughEditorFS(t *testing.T) {
	env := newEnv(t)
	path := filepath.Join(env.Cwd, "nb.ipynb")
	writeFile(t, path, "{}") // exists on disk; the editor's buffer differs
	fs := &fakeFS{files: map[string]string{path: testNotebook}}
	env.FS = fs
	res := run(t, env, "NotebookEdit", map[string]any{"notebook_path": path, "cell_id": "b2", "new_source": "", "edit_mode": "delete"})
	if res.IsError {
		t.Fatal(res.Text)
	}
	if diff := cmp.Diff([]string{"read " + path, "write " + path}, fs.calls); diff != "" {
		t.Errorf("editor calls (-want +got):\n%s", diff)
	}
	if strings.Contains(fs.files[path], "b2") || readFile(t, path) != "{}" {
		t.Errorf("the edit did not go through the editor")
	}
}
