package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// ReadInput is the Read tool's input (Claude Code's shape).
type ReadInput struct {
	FilePath string `json:"file_path" jsonschema_description:"The absolute path of the file to read."`
	Offset   int    `json:"offset,omitempty" jsonschema:"minimum=1" jsonschema_description:"The 1-based line number to start reading from. Give it only when the file is too long to read at once."`
	Limit    int    `json:"limit,omitempty" jsonschema:"minimum=1" jsonschema_description:"How many lines to read (2000 when omitted). Give it only when the file is too long to read at once."`
}

const (
	readDefaultLimit = 2000
	readMaxLineChars = 2000
	// readMaxBytes stops the listing early so one call cannot flood the
	// model's context.
	readMaxBytes = 256 << 10
	// readMaxFileBytes refuses files too large to load.
	readMaxFileBytes = 64 << 20
)

var readSpec = specFor[ReadInput]()

var imageTypes = map[string]string{
	".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG", ".gif": "GIF", ".webp": "WebP",
}

type readTool struct{}

func (readTool) Name() string { return "Read" }

func (readTool) Description() string {
	return `Reads a file from the local filesystem and returns its lines numbered like "cat -n" (line number, a tab, the text).

- file_path must be an absolute path inside the session's directories.
- Up to 2000 lines are returned from the start of the file by default; use offset and limit to page through long files.
- Lines longer than 2000 characters are truncated.
- Directories cannot be read: use Glob, or ls through Bash.
- Binary files are refused; images are reported but their pixels are not shown yet.
- Reading several files at once (several calls in one response) is encouraged.`
}

func (readTool) Schema() json.RawMessage { return readSpec.schema() }
func (readTool) Kind() Kind              { return KindRead }
func (readTool) ReadOnly() bool          { return true }

func (readTool) Describe(env *Env, input json.RawMessage) Description {
	var in ReadInput
	describeInput(input, &in)
	if in.FilePath == "" {
		return Description{Title: "Read"}
	}
	title := "Read " + displayPath(env, in.FilePath)
	switch {
	case in.Offset > 0 && in.Limit > 0:
		title += fmt.Sprintf(" (lines %d-%d)", in.Offset, in.Offset+in.Limit-1)
	case in.Offset > 0:
		title += fmt.Sprintf(" (from line %d)", in.Offset)
	case in.Limit > 0:
		title += fmt.Sprintf(" (lines 1-%d)", in.Limit)
	}
	loc := Location{Path: lexicalPath(env, in.FilePath)}
	if in.Offset > 0 {
		loc.Line = in.Offset
	}
	return Description{Title: title, Locations: []Location{loc}}
}

func (t readTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	var in ReadInput
	if err := readSpec.decode(t.Name(), input, &in); err != nil {
		return Errorf("%v", err)
	}
	if in.FilePath == "" {
		return Errorf("Read: file_path is required")
	}
	if in.Offset < 0 || in.Limit < 0 {
		return Errorf("Read: offset and limit must be positive")
	}
	path, err := env.Resolve(in.FilePath)
	if err != nil {
		return Errorf("Read: %v", err)
	}
	fi, statErr := os.Stat(path)
	if statErr == nil && fi.IsDir() {
		return Errorf("Read: %s is a directory, not a file. Use Glob to find files in it, or Bash with ls to list it.", path)
	}
	if kind, ok := imageTypes[strings.ToLower(filepath.Ext(path))]; ok && statErr == nil {
		return Result{
			Text:      fmt.Sprintf("%s is a %s image (%d bytes). Image content cannot be shown by this tool yet.", path, kind, fi.Size()),
			Locations: []Location{{Path: path}},
		}
	}
	if env.FS == nil && statErr == nil && fi.Size() > readMaxFileBytes {
		return Errorf("Read: %s is too large to read (%d bytes). Use Grep to search it, or Bash with head, tail or sed to see parts of it.", path, fi.Size())
	}
	content, err := readText(ctx, env, path)
	if err != nil {
		if errors.Is(err, errNotExist) {
			return Errorf("Read: file %s does not exist", path)
		}
		return Errorf("Read: cannot read %s: %v", path, err)
	}
	if isBinary(content) {
		return Errorf("Read: %s is a binary file (%d bytes); only text files can be read", path, len(content))
	}
	offset := max(in.Offset, 1)
	limit := in.Limit
	if limit == 0 {
		limit = readDefaultLimit
	}
	text := formatLines(path, content, offset, limit)
	loc := Location{Path: path}
	if in.Offset > 0 {
		loc.Line = offset
	}
	return Result{Text: text, Locations: []Location{loc}}
}

// formatLines renders lines [offset, offset+limit) of content like cat -n:
// the line number right-aligned in six columns, a tab, the line. Notes
// about anything left out follow a blank line.
func formatLines(path, content string, offset, limit int) string {
	if content == "" {
		return fmt.Sprintf("(%s exists but is empty)", path)
	}
	lines := strings.Split(content, "\n")
	if strings.HasSuffix(content, "\n") {
		lines = lines[:len(lines)-1]
	}
	total := len(lines)
	if offset > total {
		return fmt.Sprintf("(%s has %s; offset %d is past the end)", path, plural(total, "line", "lines"), offset)
	}
	end := min(total, offset-1+limit)
	var b strings.Builder
	cutLines := 0
	last := offset - 1
	for i := offset - 1; i < end; i++ {
		if b.Len() >= readMaxBytes {
			break
		}
		line := strings.TrimSuffix(lines[i], "\r")
		if utf8.RuneCountInString(line) > readMaxLineChars {
			line = string([]rune(line)[:readMaxLineChars]) + "… [line truncated]"
			cutLines++
		}
		if i > offset-1 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%6d\t%s", i+1, line)
		last = i + 1
	}
	var notes []string
	if last < total {
		notes = append(notes, fmt.Sprintf("Showing lines %d-%d of %d. Use offset and limit to read more.", offset, last, total))
	}
	if cutLines > 0 {
		verb := "were"
		if cutLines == 1 {
			verb = "was"
		}
		notes = append(notes, fmt.Sprintf("%s longer than %d characters %s truncated.",
			plural(cutLines, "line", "lines"), readMaxLineChars, verb))
	}
	if len(notes) > 0 {
		b.WriteString("\n\n(" + strings.Join(notes, " ") + ")")
	}
	return b.String()
}
