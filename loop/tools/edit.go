package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
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
	var in EditInput
	describeInput(input, &in)
	if in.FilePath == "" {
		return Description{Title: "Edit"}
	}
	return Description{
		Title:     "Edit " + displayPath(env, in.FilePath),
		Locations: []Location{{Path: lexicalPath(env, in.FilePath)}},
	}
}

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
	content, err := readText(ctx, env, dirs, path)
	if err != nil {
		if errors.Is(err, errNotExist) {
			return Errorf("Edit: file %s does not exist (use Write to create it)", path)
		}
		return Errorf("Edit: cannot read %s: %v", path, err)
	}
	updated, n, line, err := applyEdit(content, in, path)
	if err != nil {
		return Errorf("%v", err)
	}
	if err := writeText(ctx, env, dirs, path, updated); err != nil {
		return Errorf("Edit: cannot write %s: %v", path, err)
	}
	text := fmt.Sprintf("Edited %s: replaced 1 occurrence at line %d.", path, line)
	if n > 1 {
		text = fmt.Sprintf("Edited %s: replaced %d occurrences (the first at line %d).", path, n, line)
	}
	old := content
	return Result{
		Text:      text,
		Diffs:     []Diff{{Path: path, OldText: &old, NewText: updated}},
		Locations: []Location{{Path: path, Line: line}},
	}
}

// applyEdit replaces in.OldString with in.NewString in content (the file
// at path), once or, with ReplaceAll, everywhere. It returns the new
// content, the number of occurrences and the line of the first. Run and
// Preview share it, so the diff the user approves is the edit that runs.
func applyEdit(content string, in EditInput, path string) (updated string, n, line int, err error) {
	oldS, newS := in.OldString, in.NewString
	n = strings.Count(content, oldS)
	if n == 0 && strings.Contains(content, "\r\n") && strings.Contains(oldS, "\n") && !strings.Contains(oldS, "\r\n") {
		// The file has CRLF line endings and the model wrote LF.
		oldS = strings.ReplaceAll(oldS, "\n", "\r\n")
		newS = strings.ReplaceAll(strings.ReplaceAll(newS, "\r\n", "\n"), "\n", "\r\n")
		n = strings.Count(content, oldS)
	}
	switch {
	case n == 0:
		return "", 0, 0, fmt.Errorf("Edit: old_string was not found in %s. Read the file again and copy the text exactly, including whitespace and indentation.", path)
	case n > 1 && !in.ReplaceAll:
		return "", 0, 0, fmt.Errorf("Edit: old_string occurs %d times in %s. Add surrounding lines to make it unique, or set replace_all to replace every occurrence.", n, path)
	}
	first := strings.Index(content, oldS)
	line = 1 + strings.Count(content[:first], "\n")
	count := 1
	if in.ReplaceAll {
		count = -1
	}
	return strings.Replace(content, oldS, newS, count), n, line, nil
}
