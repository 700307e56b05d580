package codex

import (
	"errors"
	"fmt"
	"strings"

	// The line diff shared with the replay provider's unified diffs.
	"github.com/cordis-agent/cordis/internal/udiff"
)

// Codex's apply_patch envelope. cordis's Edit and Write calls are shown to
// Codex hooks as apply_patch calls whose tool_input.command is a patch in
// this format, built from the file's content before and after the call:
//
//	*** Begin Patch
//	*** Update File: src/app.go
//	@@
//	 unchanged line
//	-old line
//	+new line
//	*** End Patch
//
// A new file is "*** Add File: path" followed by its lines, each prefixed
// with '+'.
const (
	patchBegin   = "*** Begin Patch"
	patchEnd     = "*** End Patch"
	patchAdd     = "*** Add File: "
	patchUpdate  = "*** Update File: "
	patchDelete  = "*** Delete File: "
	patchMoveTo  = "*** Move to: "
	patchEOF     = "*** End of File"
	contextLines = 3
)

// splitLines splits content into lines without their newlines; a final
// newline does not start another line.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	return strings.Split(s, "\n")
}

// addFilePatch is the patch that creates path with content.
func addFilePatch(path, content string) string {
	var b strings.Builder
	b.WriteString(patchBegin + "\n" + patchAdd + path + "\n")
	for _, l := range splitLines(content) {
		b.WriteString("+" + l + "\n")
	}
	b.WriteString(patchEnd)
	return b.String()
}

// updateFilePatch is the patch that turns old into new in path, as hunks
// of changed lines with up to three lines of context around them.
func updateFilePatch(path, old, new string) string {
	var b strings.Builder
	b.WriteString(patchBegin + "\n" + patchUpdate + path + "\n")
	a, z := splitLines(old), splitLines(new)
	for _, h := range udiff.Hunks(udiff.Lines(a, z), contextLines) {
		b.WriteString("@@\n")
		for _, e := range h {
			var line string
			if e.Kind == udiff.Insert {
				line = z[e.B]
			} else {
				line = a[e.A]
			}
			b.WriteString(string(e.Kind) + line + "\n")
		}
	}
	b.WriteString(patchEnd)
	return b.String()
}

// replacePatch is the best patch when the file cannot be read: the edited
// text replaced as whole lines, without context.
func replacePatch(path, oldText, newText string) string {
	var b strings.Builder
	b.WriteString(patchBegin + "\n" + patchUpdate + path + "\n@@\n")
	for _, l := range splitLines(oldText) {
		b.WriteString("-" + l + "\n")
	}
	for _, l := range splitLines(newText) {
		b.WriteString("+" + l + "\n")
	}
	b.WriteString(patchEnd)
	return b.String()
}

// patchOp is one file operation of a parsed patch.
type patchOp struct {
	kind   string // "add", "update" or "delete"
	path   string
	moveTo string
	lines  []string // add: the new file's lines
	chunks []chunk  // update
}

type chunk struct {
	header   string // text after "@@ ", a line to seek before matching
	old, new []string
	eof      bool
}

// parsePatch reads an apply_patch envelope.
func parsePatch(text string) ([]patchOp, error) {
	lines := strings.Split(strings.TrimSpace(strings.ReplaceAll(text, "\r\n", "\n")), "\n")
	if len(lines) < 2 || strings.TrimSpace(lines[0]) != patchBegin || strings.TrimSpace(lines[len(lines)-1]) != patchEnd {
		return nil, errors.New("a patch must start with \"*** Begin Patch\" and end with \"*** End Patch\"")
	}
	lines = lines[1 : len(lines)-1]
	var ops []patchOp
	var cur *patchOp
	var ch *chunk
	flushChunk := func() {
		if cur != nil && ch != nil {
			cur.chunks = append(cur.chunks, *ch)
		}
		ch = nil
	}
	flushOp := func() {
		flushChunk()
		if cur != nil {
			ops = append(ops, *cur)
		}
		cur = nil
	}
	for n, l := range lines {
		switch {
		case strings.HasPrefix(l, patchAdd):
			flushOp()
			cur = &patchOp{kind: "add", path: strings.TrimSpace(l[len(patchAdd):])}
		case strings.HasPrefix(l, patchUpdate):
			flushOp()
			cur = &patchOp{kind: "update", path: strings.TrimSpace(l[len(patchUpdate):])}
		case strings.HasPrefix(l, patchDelete):
			flushOp()
			cur = &patchOp{kind: "delete", path: strings.TrimSpace(l[len(patchDelete):])}
		case cur == nil:
			return nil, fmt.Errorf("patch line %d: expected a file operation, got %q", n+2, l)
		case cur.kind == "add":
			if !strings.HasPrefix(l, "+") {
				return nil, fmt.Errorf("patch line %d: a line of an added file must start with '+'", n+2)
			}
			cur.lines = append(cur.lines, l[1:])
		case cur.kind == "delete":
			return nil, fmt.Errorf("patch line %d: unexpected %q after a deleted file", n+2, l)
		case strings.HasPrefix(l, patchMoveTo) && ch == nil && len(cur.chunks) == 0:
			cur.moveTo = strings.TrimSpace(l[len(patchMoveTo):])
		case l == "@@" || strings.HasPrefix(l, "@@ "):
			flushChunk()
			ch = &chunk{header: strings.TrimSpace(strings.TrimPrefix(l, "@@"))}
		case strings.TrimSpace(l) == patchEOF:
			if ch == nil {
				return nil, fmt.Errorf("patch line %d: %q outside a hunk", n+2, patchEOF)
			}
			ch.eof = true
		default:
			if ch == nil {
				ch = &chunk{} // the first hunk may omit its "@@"
			}
			switch {
			case l == "":
				ch.old, ch.new = append(ch.old, ""), append(ch.new, "")
			case l[0] == ' ':
				ch.old, ch.new = append(ch.old, l[1:]), append(ch.new, l[1:])
			case l[0] == '-':
				ch.old = append(ch.old, l[1:])
			case l[0] == '+':
				ch.new = append(ch.new, l[1:])
			default:
				return nil, fmt.Errorf("patch line %d: a hunk line must start with ' ', '-' or '+', got %q", n+2, l)
			}
		}
	}
	flushOp()
	if len(ops) == 0 {
		return nil, errors.New("the patch changes no file")
	}
	return ops, nil
}

// applyChunks applies an update's hunks to content, finding each hunk's
// old lines at or after the previous hunk (exactly, then ignoring trailing
// whitespace, then ignoring surrounding whitespace, as Codex does).
func applyChunks(content string, chunks []chunk) (string, error) {
	lines := splitLines(content)
	cursor := 0
	for i, c := range chunks {
		if c.header != "" {
			at := seek(lines, []string{c.header}, cursor, false)
			if at < 0 {
				return "", fmt.Errorf("hunk %d: context %q not found", i+1, c.header)
			}
			cursor = at + 1
		}
		if len(c.old) == 0 {
			at := len(lines)
			if c.header != "" && !c.eof {
				at = cursor
			}
			lines = append(lines[:at:at], append(append([]string(nil), c.new...), lines[at:]...)...)
			cursor = at + len(c.new)
			continue
		}
		at := seek(lines, c.old, cursor, c.eof)
		if at < 0 {
			return "", fmt.Errorf("hunk %d: the lines to change were not found:\n%s", i+1, strings.Join(c.old, "\n"))
		}
		rest := append(append([]string(nil), c.new...), lines[at+len(c.old):]...)
		lines = append(lines[:at:at], rest...)
		cursor = at + len(c.new)
	}
	if len(lines) == 0 {
		return "", nil
	}
	return strings.Join(lines, "\n") + "\n", nil
}

// seek finds pattern in lines at or after start (at the end of the file
// first when eof), with decreasingly strict line comparisons.
func seek(lines, pattern []string, start int, eof bool) int {
	norms := []func(string) string{
		func(s string) string { return s },
		func(s string) string { return strings.TrimRight(s, " \t") },
		strings.TrimSpace,
	}
	for _, norm := range norms {
		match := func(at int) bool {
			for k, p := range pattern {
				if norm(lines[at+k]) != norm(p) {
					return false
				}
			}
			return true
		}
		if eof {
			if at := len(lines) - len(pattern); at >= start && match(at) {
				return at
			}
		}
		for at := start; at+len(pattern) <= len(lines); at++ {
			if match(at) {
				return at
			}
		}
	}
	return -1
}
