package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cordis-agent/cordis/internal/confine"
)

// EditInput is the Edit tool's input (Claude Code's shape).
type EditInput struct {
	FilePath   string `json:"file_path" jsonschema_description:"The absolute path of the file to change."`
	OldString  string `json:"old_string" jsonschema_description:"The exact text to replace. It must occur exactly once in the file unless replace_all is true."`
	NewString  string `json:"new_string" jsonschema_description:"The text to put in its place (it must differ from old_string)."`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"default=false" jsonschema_description:"Replace every occurrence of old_string instead of requiring exactly one."`
}

var editSpec = specFor[EditInput]()

type editTool struct{}

func (editTool) Name() string { return "Edit" }

func (editTool) Description() string {
	return `Replaces exact text in a file.

- file_path must be an absolute path inside the session's directories; the file must exist (use Write to create files).
- Read the file first, and copy old_string exactly as it appears, indentation included, without the line-number prefix that Read adds.
- The edit fails when old_string is not found, or when it occurs more than once and replace_all is not set: then add surrounding lines to make it unique.
- Set replace_all to change every occurrence, for example to rename a variable.`
}

func (editTool) Schema() json.RawMessage { return editSpec.schema() }
func (editTool) Kind() Kind              { return KindEdit }
func (editTool) ReadOnly() bool          { return false }

func (editTool) Describe(env *Env, input json.RawMessage) Description {
	var in filePathOnly // the strings, perhaps megabytes, are not copied
	describeInput(input, &in)
	if in.FilePath == "" {
		return Description{Title: "Edit"}
	}
	return Description{
		Title:     "Edit " + displayPath(env, in.FilePath),
		Locations: []Location{{Path: lexicalPath(env, in.FilePath)}},
	}
}

// editMaxFileBytes is the largest file Edit changes: an edit holds the
// old and the new content at once, so a larger file is refused with a
// suggestion instead of risking the agent's memory.
const editMaxFileBytes = 64 << 20

func (t editTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	var in EditInput
	if err := editSpec.decode(t.Name(), input, &in); err != nil {
		return Errorf("%v", err)
	}
	if in.FilePath == "" {
		return Errorf("Edit: file_path is required")
	}
	if in.OldString == "" {
		return Errorf("Edit: old_string is empty; give the exact text to replace (use Write to create or overwrite a whole file)")
	}
	if in.OldString == in.NewString {
		return Errorf("Edit: old_string and new_string are identical; there is nothing to change")
	}
	path, err := env.Resolve(in.FilePath)
	if err != nil {
		return Errorf("Edit: %v", err)
	}
	dirs := env.confined()
	defer dirs.Close()
	if err := checkRegular(dirs, path); err != nil {
		return Errorf("Edit: %v", err)
	}
	content, err := readText(ctx, env, dirs, path, editMaxFileBytes)
	if err != nil {
		return editReadError(path, err)
	}
	ed, err := applyEdit(content, in, path)
	if err != nil {
		return Errorf("%v", err)
	}
	if err := writeText(ctx, env, dirs, path, ed.updated); err != nil {
		return Errorf("Edit: cannot write %s: %v", path, err)
	}
	n := len(ed.reps)
	text := fmt.Sprintf("Edited %s: replaced 1 occurrence at line %d.", path, ed.line)
	if n > 1 {
		text = fmt.Sprintf("Edited %s: replaced %d occurrences (the first at line %d).", path, n, ed.line)
	}
	return Result{
		Text:      text,
		Diffs:     ed.diffs(path, content),
		Locations: []Location{{Path: path, Line: ed.line}},
	}
}

func editReadError(path string, err error) Result {
	switch {
	case errors.Is(err, errNotExist):
		return Errorf("Edit: file %s does not exist (use Write to create it)", path)
	case errors.Is(err, confine.ErrTooLarge):
		return Errorf("Edit: %s is too large to edit safely (the limit is %d MiB): %v. Change it with Bash (sed -i, or a script that streams it) instead.", path, editMaxFileBytes>>20, err)
	}
	return Errorf("Edit: cannot read %s: %v", path, err)
}

// edit is an Edit worked out: the new content, the replacements made and
// the line of the first.
type edit struct {
	updated string
	reps    []replacement
	line    int
}

// diffs is what the editor is shown for the edit of old at path: both
// texts whole for a small file, else the changed hunks.
func (e edit) diffs(path, old string) []Diff {
	if wholeDiff(int64(len(old)), int64(len(e.updated))) {
		return []Diff{{Path: path, OldText: &old, NewText: e.updated}}
	}
	hs, total := editHunks(old, e.reps)
	return diffsOf(path, old, hs, total)
}

// applyEdit replaces in.OldString with in.NewString in content (the file
// at path), once or, with ReplaceAll, everywhere. Run and Preview share
// it, so the diff the user approves is the edit that runs.
func applyEdit(content string, in EditInput, path string) (edit, error) {
	oldS, newS := in.OldString, in.NewString
	n := strings.Count(content, oldS)
	if n == 0 && strings.Contains(content, "\r\n") && strings.Contains(oldS, "\n") && !strings.Contains(oldS, "\r\n") {
		// The file has CRLF line endings and the model wrote LF.
		oldS = strings.ReplaceAll(oldS, "\n", "\r\n")
		newS = strings.ReplaceAll(strings.ReplaceAll(newS, "\r\n", "\n"), "\n", "\r\n")
		n = strings.Count(content, oldS)
	}
	switch {
	case n == 0:
		return edit{}, fmt.Errorf("Edit: old_string was not found in %s. Read the file again and copy the text exactly, including whitespace and indentation.", path)
	case n > 1 && !in.ReplaceAll:
		return edit{}, fmt.Errorf("Edit: old_string occurs %d times in %s. Add surrounding lines to make it unique, or set replace_all to replace every occurrence.", n, path)
	}
	reps := make([]replacement, 0, n)
	var b strings.Builder
	b.Grow(len(content) + n*(len(newS)-len(oldS)))
	pos := 0
	for len(reps) < n {
		at := pos + strings.Index(content[pos:], oldS)
		reps = append(reps, replacement{at: at, n: len(oldS), with: newS})
		b.WriteString(content[pos:at])
		b.WriteString(newS)
		pos = at + len(oldS)
	}
	b.WriteString(content[pos:])
	line := 1 + strings.Count(content[:reps[0].at], "\n")
	return edit{updated: b.String(), reps: reps, line: line}, nil
}
