package tools

import (
	"fmt"
	"strings"
)

// What an edit shows the editor (ACP diff content, which is also logged).
// A small file is shown whole, old and new, so the editor can lay out the
// change in full. A larger one is shown as hunks: each changed region
// with hunkContext lines around it, as one diff entry whose oldText and
// newText are that region before and after (Zed renders each entry as a
// hunk). The hunks of one call carry at most diffMaxBytes; beyond that they
// are elided with a line that says how much was left out, so an edit of a
// file of any size costs a bounded frame and log line.
const (
	wholeDiffMaxBytes = 64 << 10
	diffMaxBytes      = 64 << 10
	hunkContext       = 3
)

// hunk is one changed region: old[oldStart:oldEnd] (whole lines, context
// included) became newText, of newLines lines. newText may stop short of
// the whole new region (at a line) when that is larger than can be shown.
type hunk struct {
	oldStart, oldEnd int
	newText          string
	newLines         int
}

// replacement is one occurrence an Edit replaces: old[at:at+n] becomes
// with.
type replacement struct {
	at, n int
	with  string
}

// lineStart is the offset of the start of the line holding s[i], moved
// back over context more lines.
func lineStart(s string, i, context int) int {
	for {
		j := strings.LastIndexByte(s[:i], '\n')
		if j < 0 {
			return 0
		}
		if context == 0 {
			return j + 1
		}
		i, context = j, context-1
	}
}

// lineEnd is the offset just past the newline ending the line holding
// s[i-1] (the line an edit ending at i ends in), moved on over context
// more lines; len(s) at most.
func lineEnd(s string, i, context int) int {
	if i > 0 && i <= len(s) && s[i-1] == '\n' {
		if context == 0 {
			return i
		}
		context--
	}
	for {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			return len(s)
		}
		i += j + 1
		if context == 0 {
			return i
		}
		context--
	}
}

// editHunks groups the replacements (ascending, not overlapping) of an
// edit of old into hunks with context lines, merging those whose context
// touches. It builds hunks only while they fit in diffMaxBytes and counts
// the rest: total is the number of hunks the edit has.
func editHunks(old string, reps []replacement) (hs []hunk, total int) {
	size := 0
	for i := 0; i < len(reps); {
		start := lineStart(old, reps[i].at, hunkContext)
		end := lineEnd(old, reps[i].at+reps[i].n, hunkContext)
		j := i + 1
		for j < len(reps) && lineStart(old, reps[j].at, hunkContext) <= end {
			end = max(end, lineEnd(old, reps[j].at+reps[j].n, hunkContext))
			j++
		}
		total++
		if size <= diffMaxBytes {
			h := buildHunk(old, start, end, reps[i:j], diffMaxBytes)
			hs = append(hs, h)
			size += end - start + len(h.newText)
		}
		i = j
	}
	return hs, total
}

// buildHunk is the hunk of old[start:end] with reps (inside it) applied;
// its new text is built up to about keep bytes, its lines counted whole.
func buildHunk(old string, start, end int, reps []replacement, keep int) hunk {
	var b strings.Builder
	newlines, last := 0, byte('\n')
	add := func(piece string) {
		if piece == "" {
			return
		}
		newlines += strings.Count(piece, "\n")
		last = piece[len(piece)-1]
		if b.Len() <= keep {
			b.WriteString(piece)
		}
	}
	pos := start
	for _, r := range reps {
		add(old[pos:r.at])
		add(r.with)
		pos = r.at + r.n
	}
	add(old[pos:end])
	if last != '\n' {
		newlines++
	}
	text := b.String()
	if len(text) > keep { // cut at a line, as diffsOf shows it
		text, _ = cutLines(text, keep)
	}
	return hunk{oldStart: start, oldEnd: end, newText: text, newLines: newlines}
}

// diffsOf turns hunks of the file at path into the editor's diff entries,
// within diffMaxBytes: a region too large is cut at a line and says how
// many of its lines are not shown, and hunks past the budget are dropped
// with a note on the last one shown. total is the number of hunks the
// change has (more than len(hs) when the caller stopped early).
func diffsOf(path, old string, hs []hunk, total int) []Diff {
	var out []Diff
	left := diffMaxBytes
	for _, h := range hs {
		if left <= 0 {
			break
		}
		share := left / 2
		oldText, oldCut := cutLines(old[h.oldStart:h.oldEnd], share)
		newText, _ := cutLines(h.newText, share)
		d := elided(path, oldText, oldCut, newText, h.newLines-countLines(newText))
		left -= len(*d.OldText) + len(d.NewText)
		out = append(out, d)
	}
	if dropped := total - len(out); dropped > 0 && len(out) > 0 {
		note := fmt.Sprintf("[… %s further down the file not shown …]\n", plural(dropped, "more changed region", "more changed regions"))
		last := &out[len(out)-1]
		o := *last.OldText + note
		last.OldText, last.NewText = &o, last.NewText+note
	}
	return out
}

// elided is the diff entry of a region whose old and new texts were cut
// (oldCut and newCut lines dropped at their ends): both end with a line
// that says so, which the editor shows as unchanged.
func elided(path, oldText string, oldCut int, newText string, newCut int) Diff {
	if oldCut > 0 || newCut > 0 {
		note := fmt.Sprintf("[… this change continues: %s of the old text and %s of the new one are not shown …]\n",
			plural(oldCut, "more line", "more lines"), plural(newCut, "more line", "more lines"))
		oldText, newText = endLine(oldText)+note, endLine(newText)+note
	}
	return Diff{Path: path, OldText: &oldText, NewText: newText}
}

// cutLines keeps the whole lines of s that fit in max bytes (at least
// nothing) and returns how many lines it dropped.
func cutLines(s string, max int) (string, int) {
	if len(s) <= max {
		return s, 0
	}
	keep := 0
	if max > 0 {
		if i := strings.LastIndexByte(s[:max], '\n'); i >= 0 {
			keep = i + 1
		}
	}
	return s[:keep], countLines(s[keep:])
}

// wholeDiff reports whether a change of a file from old to new bytes is
// small enough to show both whole.
func wholeDiff(oldLen, newLen int64) bool {
	return oldLen+newLen <= wholeDiffMaxBytes
}

// endLine ends a non-empty s with a newline, so that a note appended
// starts a line of its own.
func endLine(s string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s
}
