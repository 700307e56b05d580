package tools

import (
	"context"
	"encoding/json"
	"fmt"
)

// WriteInput is the Write tool's input (Claude Code's shape).
type WriteInput struct {
	FilePath string `json:"file_path" jsonschema_description:"The absolute path of the file to write; missing parent directories are created."`
	Content  string `json:"content" jsonschema_description:"The complete new content of the file."`
}

var writeSpec = specFor[WriteInput]()

// filePathOnly is the part of a Write or Edit input a description needs.
type filePathOnly struct {
	FilePath string `json:"file_path"`
}

type writeTool struct{}

func (writeTool) Name() string { return "Write" }

func (writeTool) Description() string {
	return `Writes a file to the local filesystem, replacing it entirely if it exists.

- file_path must be an absolute path inside the session's directories.
- Read an existing file before overwriting it, and prefer Edit for changes to part of a file.
- Create new files only when the task needs them; do not write documentation files unless asked.`
}

func (writeTool) Schema() json.RawMessage { return writeSpec.schema() }
func (writeTool) Kind() Kind              { return KindEdit }
func (writeTool) ReadOnly() bool          { return false }

func (writeTool) Describe(env *Env, input json.RawMessage) Description {
	var in filePathOnly // the content, perhaps megabytes, is not copied
	describeInput(input, &in)
	if in.FilePath == "" {
		return Description{Title: "Write"}
	}
	return Description{
		Title:     "Write " + displayPath(env, in.FilePath),
		Locations: []Location{{Path: lexicalPath(env, in.FilePath)}},
	}
}

func (t writeTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	var in WriteInput
	if err := writeSpec.decode(t.Name(), input, &in); err != nil {
		return Errorf("%v", err)
	}
	if in.FilePath == "" {
		return Errorf("Write: file_path is required")
	}
	path, err := env.Resolve(in.FilePath)
	if err != nil {
		return Errorf("Write: %v", err)
	}
	dirs := env.confined()
	defer dirs.Close()
	if err := checkRegular(dirs, path); err != nil {
		return Errorf("Write: %v", err)
	}
	// A file missing on disk is new: it is not read through the editor
	// first, whose error for it some clients print (acpx: ENOENT).
	diffs, existed, err := writeDiffs(ctx, env, dirs, path, in.Content, false)
	switch {
	case ctx.Err() != nil:
		// Past this point the file may change, and the result says how.
		return Errorf("Write was cancelled; %s was not changed.", path)
	case err != nil:
		return Errorf("Write: cannot read the current content of %s: %v", path, err)
	}
	if err := writeText(ctx, env, dirs, path, in.Content); err != nil {
		return Errorf("Write: cannot write %s: %v", path, err)
	}
	verb := "Created"
	if existed {
		verb = "Updated"
	}
	return Result{
		Text:      fmt.Sprintf("%s %s (%s).", verb, path, plural(countLines(in.Content), "line", "lines")),
		Diffs:     diffs,
		Locations: []Location{{Path: path}},
	}
}
