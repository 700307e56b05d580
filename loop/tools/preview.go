package tools

import (
	"context"
	"encoding/json"
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
	path, err := env.Resolve(in.FilePath)
	if err != nil {
		return nil
	}
	dirs := env.confined()
	defer dirs.Close()
	if checkRegular(dirs, path) != nil {
		return nil
	}
	content, err := readText(ctx, env, dirs, path, editMaxFileBytes)
	if err != nil {
		return nil
	}
	ed, err := applyEdit(content, in, path)
	if err != nil {
		return nil
	}
	return ed.diffs(path, content)
}

// Preview is the file's new content against its current one (none for a
// new file), as Run shows it.
func (t writeTool) Preview(ctx context.Context, env *Env, input json.RawMessage) []Diff {
	var in WriteInput
	if writeSpec.decode(t.Name(), input, &in) != nil || in.FilePath == "" {
		return nil
	}
	path, err := env.Resolve(in.FilePath)
	if err != nil {
		return nil
	}
	dirs := env.confined()
	defer dirs.Close()
	diffs, _, err := writeDiffs(ctx, env, dirs, path, in.Content, false)
	if err != nil {
		return nil
	}
	return diffs
}
