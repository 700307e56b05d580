package tools

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// NotebookEditInput is the NotebookEdit tool's input (Claude Code's shape).
type NotebookEditInput struct {
	NotebookPath string `json:"notebook_path" jsonschema_description:"The absolute path of the Jupyter notebook (.ipynb) to edit."`
	CellID       string `json:"cell_id,omitempty" jsonschema_description:"The id of the cell to edit. With edit_mode insert, the new cell goes after this cell, or first when cell_id is omitted."`
	NewSource    string `json:"new_source" jsonschema_description:"The new source of the cell (ignored by delete)."`
	CellType     string `json:"cell_type,omitempty" jsonschema:"enum=code,enum=markdown" jsonschema_description:"The type of the cell. Required for insert; for replace it defaults to the cell's current type."`
	EditMode     string `json:"edit_mode,omitempty" jsonschema:"enum=replace,enum=insert,enum=delete" jsonschema_description:"replace (the default) rewrites the cell's source, insert adds a new cell, delete removes the cell."`
}

var notebookSpec = specFor[NotebookEditInput]()

// notebookMaxBytes refuses notebooks too large to rewrite in memory (their
// outputs may hold images, so this is larger than Edit's limit).
const notebookMaxBytes = 64 << 20

type notebookEditTool struct{}

func (notebookEditTool) Name() string { return "NotebookEdit" }

func (notebookEditTool) Description() string {
	return `Replaces, inserts or deletes one cell of a Jupyter notebook (.ipynb file).

- notebook_path must be an absolute path inside the session's directories. Read the notebook first: its JSON shows each cell's id, type and source.
- Cells are named by their id (cell_id); "cell-N" (N counted from 0) names the N-th cell of a notebook whose cells have no ids.
- edit_mode replace (the default) rewrites the cell's source; a replaced code cell loses its outputs and execution count.
- edit_mode insert adds a cell after cell_id, or at the top when cell_id is omitted; cell_type (code or markdown) is required.
- edit_mode delete removes the cell named by cell_id.
- Use this tool rather than Edit or Write for notebooks: it keeps the notebook valid and its metadata intact.`
}

func (notebookEditTool) Schema() json.RawMessage { return notebookSpec.schema() }
func (notebookEditTool) Kind() Kind              { return KindEdit }
func (notebookEditTool) ReadOnly() bool          { return false }

func (notebookEditTool) Describe(env *Env, input json.RawMessage) Description {
	var in NotebookEditInput
	describeInput(input, &in)
	if in.NotebookPath == "" {
		return Description{Title: "NotebookEdit"}
	}
	verb := map[string]string{"insert": "Insert a cell into", "delete": "Delete a cell of"}[in.EditMode]
	if verb == "" {
		verb = "Edit a cell of"
	}
	return Description{
		Title:     verb + " " + displayPath(env, in.NotebookPath),
		Locations: []Location{{Path: lexicalPath(env, in.NotebookPath)}},
	}
}

func (t notebookEditTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	path, old, updated, summary, err := t.plan(ctx, env, input)
	if err != nil {
		return Errorf("NotebookEdit: %v", err)
	}
	dirs := env.confined()
	defer dirs.Close()
	if err := writeText(ctx, env, dirs, path, updated); err != nil {
		return Errorf("NotebookEdit: cannot write %s: %v", path, err)
	}
	return Result{
		Text:      summary,
		Diffs:     []Diff{{Path: path, OldText: &old, NewText: updated}},
		Locations: []Location{{Path: path}},
	}
}

// Preview is the diff the edit would make, computed as Run computes it, so
// the user approves the change in view.
func (t notebookEditTool) Preview(ctx context.Context, env *Env, input json.RawMessage) []Diff {
	path, old, updated, _, err := t.plan(ctx, env, input)
	if err != nil {
		return nil
	}
	return []Diff{{Path: path, OldText: &old, NewText: updated}}
}

var _ Previewer = notebookEditTool{}

// plan validates the input, reads the notebook and computes the edited
// text without writing it.
func (t notebookEditTool) plan(ctx context.Context, env *Env, input json.RawMessage) (path, old, updated, summary string, err error) {
	var in NotebookEditInput
	if err := notebookSpec.decode(t.Name(), input, &in); err != nil {
		return "", "", "", "", errors.New(strings.TrimPrefix(err.Error(), "NotebookEdit: "))
	}
	if err := checkNotebookInput(&in); err != nil {
		return "", "", "", "", err
	}
	path, err = env.Resolve(in.NotebookPath)
	if err != nil {
		return "", "", "", "", err
	}
	dirs := env.confined()
	defer dirs.Close()
	if err := checkRegular(dirs, path); err != nil {
		return "", "", "", "", err
	}
	old, err = readText(ctx, env, dirs, path, notebookMaxBytes)
	if err != nil {
		if errors.Is(err, errNotExist) {
			return "", "", "", "", fmt.Errorf("notebook %s does not exist", path)
		}
		return "", "", "", "", fmt.Errorf("cannot read %s: %v", path, err)
	}
	nb, err := parseNotebook(old)
	if err != nil {
		return "", "", "", "", fmt.Errorf("%s is not a valid notebook: %v", path, err)
	}
	summary, err = nb.apply(in)
	if err != nil {
		return "", "", "", "", err
	}
	updated = nb.encode(strings.HasSuffix(old, "\n"))
	return path, old, updated, fmt.Sprintf("%s in %s.", summary, path), nil
}

func checkNotebookInput(in *NotebookEditInput) error {
	if in.NotebookPath == "" {
		return errors.New("notebook_path is required")
	}
	if filepath.Ext(in.NotebookPath) != ".ipynb" {
		return fmt.Errorf("%s is not a Jupyter notebook (.ipynb); use Edit or Write for other files", in.NotebookPath)
	}
	if in.EditMode == "" {
		in.EditMode = "replace"
	}
	switch in.EditMode {
	case "replace", "insert", "delete":
	default:
		return fmt.Errorf("edit_mode is %q; it must be replace, insert or delete", in.EditMode)
	}
	switch in.CellType {
	case "", "code", "markdown":
	default:
		return fmt.Errorf("cell_type is %q; it must be code or markdown", in.CellType)
	}
	if in.EditMode == "insert" && in.CellType == "" {
		return errors.New("cell_type is required when inserting a cell")
	}
	if in.EditMode != "insert" && in.CellID == "" {
		return fmt.Errorf("cell_id is required to %s a cell", in.EditMode)
	}
	return nil
}

// notebook is a parsed .ipynb: its top-level fields kept as raw JSON (so
// metadata and anything unknown survive byte for byte, up to indentation)
// and its cells, each a map of raw fields.
type notebook struct {
	top   map[string]json.RawMessage
	cells []map[string]json.RawMessage
}

func parseNotebook(text string) (*notebook, error) {
	nb := &notebook{}
	if err := json.Unmarshal([]byte(text), &nb.top); err != nil {
		return nil, err
	}
	raw, ok := nb.top["cells"]
	if !ok {
		return nil, errors.New(`it has no "cells" list`)
	}
	if err := json.Unmarshal(raw, &nb.cells); err != nil {
		return nil, fmt.Errorf(`"cells": %v`, err)
	}
	return nb, nil
}

// findCell returns the index of the cell with id, or, when no cell has
// that id, the index a "cell-N" (or bare N) name stands for.
func (nb *notebook) findCell(id string) (int, error) {
	if i, ok := nb.cellByID(id); ok {
		return i, nil
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(id, "cell-")); err == nil && n >= 0 && n < len(nb.cells) {
		return n, nil
	}
	return 0, fmt.Errorf("no cell has the id %q (the notebook has %s)", id, plural(len(nb.cells), "cell", "cells"))
}

// apply makes the edit and returns what was done, for the model.
func (nb *notebook) apply(in NotebookEditInput) (string, error) {
	switch in.EditMode {
	case "insert":
		at := 0
		if in.CellID != "" {
			i, err := nb.findCell(in.CellID)
			if err != nil {
				return "", err
			}
			at = i + 1
		}
		cell := map[string]json.RawMessage{"metadata": json.RawMessage("{}")}
		id := ""
		if nb.hasCellIDs() {
			id = nb.newCellID(in.NewSource, at)
			cell["id"] = mustJSON(id)
		}
		setCellType(cell, in.CellType)
		cell["source"] = sourceJSON(in.NewSource)
		nb.cells = append(nb.cells[:at], append([]map[string]json.RawMessage{cell}, nb.cells[at:]...)...)
		if id != "" {
			return fmt.Sprintf("Inserted a %s cell with id %s at position %d", in.CellType, id, at), nil
		}
		return fmt.Sprintf("Inserted a %s cell at position %d", in.CellType, at), nil
	case "delete":
		i, err := nb.findCell(in.CellID)
		if err != nil {
			return "", err
		}
		nb.cells = append(nb.cells[:i], nb.cells[i+1:]...)
		return fmt.Sprintf("Deleted cell %s", in.CellID), nil
	}
	i, err := nb.findCell(in.CellID)
	if err != nil {
		return "", err
	}
	cell := nb.cells[i]
	typ := in.CellType
	if typ == "" {
		_ = json.Unmarshal(cell["cell_type"], &typ)
	}
	setCellType(cell, typ)
	cell["source"] = sourceJSON(in.NewSource)
	return fmt.Sprintf("Replaced the source of cell %s", in.CellID), nil
}

// setCellType gives a cell the fields its type requires. A code cell's
// outputs and execution count describe its old source, so they are reset.
func setCellType(cell map[string]json.RawMessage, typ string) {
	cell["cell_type"] = mustJSON(typ)
	if typ == "code" {
		cell["execution_count"] = json.RawMessage("null")
		cell["outputs"] = json.RawMessage("[]")
		return
	}
	delete(cell, "execution_count")
	delete(cell, "outputs")
}

// hasCellIDs reports whether the notebook's format has cell ids (nbformat
// 4.5 and later), so that a new cell must get one.
func (nb *notebook) hasCellIDs() bool {
	var major, minor int
	_ = json.Unmarshal(nb.top["nbformat"], &major)
	_ = json.Unmarshal(nb.top["nbformat_minor"], &minor)
	return major > 4 || (major == 4 && minor >= 5)
}

// newCellID derives an id from the cell's source and position, so the
// same edit gives the same id (replays stay stable), and makes it unique.
func (nb *notebook) newCellID(source string, at int) string {
	sum := sha256.Sum256([]byte(strconv.Itoa(at) + "\x00" + source))
	base := hex.EncodeToString(sum[:4])
	id := base
	for n := 1; ; n++ {
		if _, taken := nb.cellByID(id); !taken {
			return id
		}
		id = fmt.Sprintf("%s-%d", base, n)
	}
}

func (nb *notebook) cellByID(id string) (int, bool) {
	for i, c := range nb.cells {
		var cid string
		if json.Unmarshal(c["id"], &cid) == nil && cid == id {
			return i, true
		}
	}
	return 0, false
}

// sourceJSON is source as nbformat writes it: a list of lines, each but
// the last keeping its newline.
func sourceJSON(source string) json.RawMessage {
	lines := strings.SplitAfter(source, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if lines == nil {
		lines = []string{}
	}
	return mustJSON(lines)
}

// encode writes the notebook as Jupyter does: keys sorted, one-space
// indentation, no HTML escaping, and a final newline when the file had one.
func (nb *notebook) encode(finalNewline bool) string {
	nb.top["cells"] = mustJSON(nb.cells)
	out := string(jsonText(nb.top, " ")) // ends with a newline
	if !finalNewline {
		out = strings.TrimSuffix(out, "\n")
	}
	return out
}

// mustJSON is v as compact JSON, without HTML escaping (Jupyter writes
// "<" as is, and raw fields must not be rewritten on the way through).
func mustJSON(v any) json.RawMessage {
	return bytes.TrimSuffix(jsonText(v, ""), []byte("\n"))
}

// jsonText encodes v without HTML escaping, indented by indent when it is
// not empty; the values given here always encode.
func jsonText(v any, indent string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("tools: encoding a notebook: %v", err))
	}
	return buf.Bytes()
}
