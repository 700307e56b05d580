package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
)

// Previewer is a tool that can show what a call would change before it
// runs, so that the user approves with the change in view (the editor
// hides an edit call's raw input). Preview writes nothing; it returns nil
// when there is nothing sensible to show (invalid input, a path outside
// the session's directories, an unreadable file): the call itself then
// reports the problem.
type Previewer interface {
	Preview(ctx context.Context, env *Env, input json.RawMessage) []Diff
}

var (
	_ Previewer = editTool{}
	_ Previewer = writeTool{}
)

// Preview is the diff the edit would make, computed as Run computes it.
func (t editTool) Preview(ctx context.Context, env *Env, input json.RawMessage) []Diff {
	var in EditInput
	if editSpec.decode(t.Name(), input, &in) != nil || in.FilePath == "" || in.OldString == "" || in.OldString == in.NewString {
		return nil
	}
	path, content, err := currentText(ctx, env, in.FilePath)
	if err != nil {
		return nil
	}
	updated, _, _, err := applyEdit(content, in, path)
	if err != nil {
		return nil
	}
	return []Diff{{Path: path, OldText: &content, NewText: updated}}
}

// Preview is the file's new content against its current one (none for a
// new file).
func (t writeTool) Preview(ctx context.Context, env *Env, input json.RawMessage) []Diff {
	var in WriteInput
	if writeSpec.decode(t.Name(), input, &in) != nil || in.FilePath == "" {
		return nil
	}
	path, content, err := currentText(ctx, env, in.FilePath)
	switch {
	case err == nil:
		return []Diff{{Path: path, OldText: &content, NewText: in.Content}}
	case errors.Is(err, errNotExist) && path != "":
		return []Diff{{Path: path, NewText: in.Content}}
	}
	return nil
}

// currentText resolves a model-supplied path and reads the file through
// the same confined path the tools read with. The path is returned
// whenever it resolved, also with an error wrapping errNotExist.
func currentText(ctx context.Context, env *Env, filePath string) (string, string, error) {
	path, err := env.Resolve(filePath)
	if err != nil {
		return "", "", err
	}
	dirs := env.confined()
	defer dirs.Close()
	if _, err := dirs.Stat(path); errors.Is(err, fs.ErrNotExist) {
		// A new file: nothing to ask the editor for (an editor shows a
		// failed read of a missing file as an error).
		return path, "", fmt.Errorf("%s: %w", path, errNotExist)
	}
	if err := checkRegular(dirs, path); err != nil {
		return "", "", err
	}
	content, err := readText(ctx, env, dirs, path)
	return path, content, err
}
