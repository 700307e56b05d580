package codex

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/cordis-agent/cordis/bridge/internal/engine"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/internal/confine"
)

// Codex's names for cordis's tools. Bash keeps its name; Edit and Write
// are shown as apply_patch (and answer to the matchers Edit and Write, as
// in Codex). Every other tool is a "function tool" under its own name with
// its own input.
const (
	toolBash       = "Bash"
	toolApplyPatch = "apply_patch"
)

// maxPatchFile caps how much of a file is read to build a patch; larger
// files get a patch of the edited text alone.
const maxPatchFile = 4 << 20

// toolView is a tool call as Codex hooks see it.
type toolView struct {
	name    string
	aliases []string
	input   json.RawMessage // Codex's tool_input

	// What updatedInput is mapped back onto.
	cordisName  string
	cordisInput json.RawMessage
	// apply_patch only: the edited file and its content before the call.
	cwd    string
	file   string // absolute
	rel    string // as written in the patch
	before fileState
}

// fileState is a file's content at some point; ok is false when it could
// not be read (too large, unreadable).
type fileState struct {
	content string
	exists  bool
	ok      bool
}

// readState reads the file a tool call names, as it is now. It is read
// through the session's directory (the call is not checked yet): a path
// or link leading outside it, or a FIFO, is not read, and the patch falls
// back to the call's own text.
func readState(cwd, path string) fileState {
	if cwd == "" {
		return fileState{}
	}
	dirs := confine.New(cwd)
	defer dirs.Close()
	data, err := dirs.ReadFile(path, maxPatchFile)
	if errors.Is(err, fs.ErrNotExist) {
		return fileState{ok: true}
	}
	if err != nil {
		return fileState{}
	}
	return fileState{content: string(data), exists: true, ok: true}
}

type editInput struct {
	FilePath   string `json:"file_path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
	Content    string `json:"content"`
}

func isPatchTool(name string) bool { return name == "Edit" || name == "Write" }

// patchPaths resolves an Edit/Write call's file: the absolute path, and
// the path written in the patch (relative to cwd when inside it, as Codex
// patches are).
func patchPaths(cwd, p string) (abs, rel string) {
	abs = p
	if !filepath.IsAbs(abs) && cwd != "" {
		abs = filepath.Join(cwd, abs)
	}
	abs = filepath.Clean(abs)
	rel = abs
	if cwd != "" {
		if r, err := filepath.Rel(cwd, abs); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			rel = filepath.ToSlash(r)
		}
	}
	return abs, rel
}

// viewTool maps the call in in to Codex's view. before is the file's
// content before the call when the bridge kept it (PostToolUse after an
// Edit/Write); nil means read it now.
func viewTool(in *hooks.Input, before *fileState) *toolView {
	tv := &toolView{name: in.ToolName, cordisName: in.ToolName, cordisInput: in.ToolInput, input: in.ToolInput}
	if len(tv.input) == 0 {
		tv.input = json.RawMessage("{}")
	}
	switch {
	case in.ToolName == toolBash:
		var b struct {
			Command     string `json:"command"`
			Description string `json:"description"`
		}
		_ = json.Unmarshal(in.ToolInput, &b)
		var o engine.Object
		o.Set("command", b.Command)
		if in.Event == hooks.PermissionRequest && b.Description != "" {
			o.Set("description", b.Description)
		}
		tv.input = o.JSON()
	case isPatchTool(in.ToolName):
		var e editInput
		if err := json.Unmarshal(in.ToolInput, &e); err != nil || e.FilePath == "" {
			return tv // not a well-formed call: shown as it is
		}
		tv.name, tv.aliases = toolApplyPatch, []string{"Edit", "Write"}
		tv.cwd = in.Cwd
		tv.file, tv.rel = patchPaths(in.Cwd, e.FilePath)
		var o engine.Object
		o.Set("command", buildToolPatch(in, e, tv, before))
		tv.input = o.JSON()
	}
	return tv
}

// buildToolPatch renders an Edit or Write as an apply_patch patch. Before
// the call (PreToolUse, PermissionRequest, and PostToolUse of a failed
// call, which changed nothing) the file on disk is the old content and the
// new one is computed from the call; after a successful call the file on
// disk is the new content and the old one is what the bridge kept at
// PreToolUse (or, for Edit, is recovered by undoing the replacement).
func buildToolPatch(in *hooks.Input, e editInput, tv *toolView, before *fileState) string {
	after := in.Event == hooks.PostToolUse
	if !after {
		tv.before = readState(in.Cwd, tv.file)
		old := tv.before
		if !old.ok {
			return fallbackPatch(tv.rel, in.ToolName, e)
		}
		if in.ToolName == "Write" {
			if !old.exists {
				return addFilePatch(tv.rel, e.Content)
			}
			return updateFilePatch(tv.rel, old.content, e.Content)
		}
		if !old.exists || e.OldString == "" || !strings.Contains(old.content, e.OldString) {
			return fallbackPatch(tv.rel, in.ToolName, e)
		}
		return updateFilePatch(tv.rel, old.content, applyEdit(old.content, e.OldString, e.NewString, e.ReplaceAll))
	}
	now := readState(in.Cwd, tv.file)
	if !now.ok || !now.exists {
		return fallbackPatch(tv.rel, in.ToolName, e)
	}
	if before != nil && before.ok {
		tv.before = *before
		if !before.exists {
			return addFilePatch(tv.rel, now.content)
		}
		return updateFilePatch(tv.rel, before.content, now.content)
	}
	if in.ToolName == "Edit" && e.NewString != "" && strings.Contains(now.content, e.NewString) {
		return updateFilePatch(tv.rel, applyEdit(now.content, e.NewString, e.OldString, e.ReplaceAll), now.content)
	}
	return fallbackPatch(tv.rel, in.ToolName, e)
}

// fallbackPatch is the patch when the file's content is unknown: a Write
// is shown as adding the file, an Edit as a hunk of the replaced text.
func fallbackPatch(rel, tool string, e editInput) string {
	if tool == "Write" {
		return addFilePatch(rel, e.Content)
	}
	return replacePatch(rel, e.OldString, e.NewString)
}

func applyEdit(content, old, new string, all bool) string {
	if all {
		return strings.ReplaceAll(content, old, new)
	}
	return strings.Replace(content, old, new, 1)
}

// mapUpdatedInput turns a PreToolUse hook's updatedInput (in Codex's shape)
// into the input of cordis's tool. For Bash and apply_patch Codex requires
// a string command: a Bash command replaces the command and keeps the
// other fields; a patch must change only the call's file (add it, or
// update it in place), and becomes a Write of the new content or an Edit
// of the whole file. Other tools take updatedInput as it is.
func mapUpdatedInput(tv *toolView, updated json.RawMessage) (json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(updated, &obj); err != nil || obj == nil {
		return nil, errors.New("updatedInput must be a JSON object")
	}
	if tv.name != toolBash && tv.name != toolApplyPatch {
		return updated, nil
	}
	var cmd string
	raw, ok := obj["command"]
	if !ok || json.Unmarshal(raw, &cmd) != nil {
		return nil, fmt.Errorf("updatedInput for %s needs a string \"command\"", tv.name)
	}
	if tv.name == toolBash {
		orig := map[string]json.RawMessage{}
		_ = json.Unmarshal(tv.cordisInput, &orig)
		orig["command"] = raw
		return json.Marshal(orig)
	}
	var current struct {
		Command string `json:"command"`
	}
	_ = json.Unmarshal(tv.input, &current)
	if strings.TrimSpace(cmd) == strings.TrimSpace(current.Command) {
		return tv.cordisInput, nil // the patch the hook was shown: no change
	}
	newContent, err := patchResult(tv, cmd)
	if err != nil {
		return nil, fmt.Errorf("updatedInput patch: %v", err)
	}
	var orig map[string]json.RawMessage
	_ = json.Unmarshal(tv.cordisInput, &orig)
	filePath := orig["file_path"]
	if tv.cordisName == "Write" {
		return marshalObject("file_path", filePath, "content", newContent)
	}
	if !tv.before.exists || tv.before.content == "" {
		return nil, fmt.Errorf("updatedInput patch: cannot express it as an Edit of %s, which is empty or missing", tv.rel)
	}
	return marshalObject("file_path", filePath, "old_string", tv.before.content, "new_string", newContent, "replace_all", false)
}

// patchResult applies the hook's patch to the call's file and returns the
// file's new content.
func patchResult(tv *toolView, text string) (string, error) {
	ops, err := parsePatch(text)
	if err != nil {
		return "", err
	}
	if len(ops) != 1 {
		return "", fmt.Errorf("it changes %d files; cordis can only rewrite this call's file %s", len(ops), tv.rel)
	}
	op := ops[0]
	if abs, _ := patchPaths(tv.cwd, op.path); abs != tv.file {
		return "", fmt.Errorf("it changes %s, not this call's file %s", op.path, tv.rel)
	}
	switch op.kind {
	case "add":
		if len(op.lines) == 0 {
			return "", nil
		}
		return strings.Join(op.lines, "\n") + "\n", nil
	case "update":
		if op.moveTo != "" {
			return "", errors.New("it moves the file, which this call cannot do")
		}
		if !tv.before.ok || !tv.before.exists {
			return "", fmt.Errorf("%s does not exist or cannot be read", tv.rel)
		}
		return applyChunks(tv.before.content, op.chunks)
	}
	return "", fmt.Errorf("it deletes %s, which this call cannot do", tv.rel)
}

func marshalObject(kv ...any) (json.RawMessage, error) {
	var o engine.Object
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o.JSON(), nil
}

func unmarshalInto(raw []byte, v any) error { return json.Unmarshal(raw, v) }
