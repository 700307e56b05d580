package udiff

import (
	"fmt"
	"strings"
)

// diffContext is the number of unchanged lines Unified shows around a
// change.
const diffContext = 3

// maxCells bounds the alignment table (len(a) * len(b) of the middle).
const maxCells = 4 << 20

// Kind is what an Edit does; its value is the line's prefix in a diff.
type Kind byte

const (
	Equal  Kind = ' '
	Delete Kind = '-'
	Insert Kind = '+'
)

// Edit is one line of an edit script.
type Edit struct {
	Kind Kind
	A, B int // line index in a (Equal, Delete) and in b (Equal, Insert); -1 otherwise
}

// Lines is a line edit script from a to b: common prefix and suffix kept,
// the middle aligned by longest common subsequence (or deleted then
// inserted whole when it is too large for that).
func Lines(a, b []string) []Edit { return align(a, b) }

// Hunks groups an edit script into hunks: each change with up to context
// unchanged lines on either side; changes closer than twice that share a
// hunk.
func Hunks(edits []Edit, context int) [][]Edit { return hunks(edits, context) }

// Unified returns a unified diff from a (named aName) to b (named bName),
// or "" when they are equal.
func Unified(aName, bName, a, b string) string {
	if a == b {
		return ""
	}
	al, bl := splitLines(a), splitLines(b)
	ops := align(al, bl)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", aName, bName)
	for _, h := range hunks(ops, diffContext) {
		writeHunk(&out, h, al, bl)
	}
	return out.String()
}

// splitLines keeps each line's "\n", so a missing final newline differs.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func align(a, b []string) []Edit {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []Edit
	for i := 0; i < pre; i++ {
		ops = append(ops, Edit{Equal, i, i})
	}
	ops = append(ops, alignMiddle(a[pre:len(a)-suf], b[pre:len(b)-suf], pre, pre)...)
	for i := 0; i < suf; i++ {
		ops = append(ops, Edit{Equal, len(a) - suf + i, len(b) - suf + i})
	}
	return ops
}

// alignMiddle aligns a and b (offsets ao, bo in the full texts) with an
// LCS table, or as delete-all/insert-all when the table would be too big.
func alignMiddle(a, b []string, ao, bo int) []Edit {
	n, m := len(a), len(b)
	var ops []Edit
	if n == 0 || m == 0 || n*m > maxCells {
		for i := range a {
			ops = append(ops, Edit{Delete, ao + i, -1})
		}
		for j := range b {
			ops = append(ops, Edit{Insert, -1, bo + j})
		}
		return ops
	}
	// lcs[i][j] is the LCS length of a[i:] and b[j:].
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			ops = append(ops, Edit{Equal, ao + i, bo + j})
			i++
			j++
		case lcs[i+1][j] >= lcs[i][j+1]:
			ops = append(ops, Edit{Delete, ao + i, -1})
			i++
		default:
			ops = append(ops, Edit{Insert, -1, bo + j})
			j++
		}
	}
	for ; i < n; i++ {
		ops = append(ops, Edit{Delete, ao + i, -1})
	}
	for ; j < m; j++ {
		ops = append(ops, Edit{Insert, -1, bo + j})
	}
	return ops
}

// hunks groups ops into runs of changes with their context.
func hunks(ops []Edit, context int) [][]Edit {
	var out [][]Edit
	i := 0
	for i < len(ops) {
		for i < len(ops) && ops[i].Kind == Equal {
			i++
		}
		if i == len(ops) {
			break
		}
		start := max(0, i-context)
		end := i
		for end < len(ops) {
			if ops[end].Kind != Equal {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].Kind == Equal {
				run++
			}
			if run == len(ops) || run-end > 2*context {
				end = min(run, end+context)
				break
			}
			end = run
		}
		out = append(out, ops[start:end])
		i = end
	}
	return out
}

func writeHunk(out *strings.Builder, h []Edit, a, b []string) {
	aStart, bStart, aLen, bLen := -1, -1, 0, 0
	for _, o := range h {
		if o.Kind != Insert {
			if aStart < 0 {
				aStart = o.A
			}
			aLen++
		}
		if o.Kind != Delete {
			if bStart < 0 {
				bStart = o.B
			}
			bLen++
		}
	}
	fmt.Fprintf(out, "@@ -%s +%s @@\n", rangeOf(aStart, aLen, h, true), rangeOf(bStart, bLen, h, false))
	for _, o := range h {
		line := ""
		switch o.Kind {
		case Insert:
			line = b[o.B]
		default:
			line = a[o.A]
		}
		out.WriteByte(byte(o.Kind))
		out.WriteString(line)
		if !strings.HasSuffix(line, "\n") {
			out.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// rangeOf formats a hunk range: "start,len" with 1-based start, or the line
// before the hunk when it has no lines on that side.
func rangeOf(start, n int, h []Edit, sideA bool) string {
	if n == 0 {
		// An empty side: the position is the line before the change.
		pos := 0
		for _, o := range h {
			if sideA && o.A >= 0 {
				pos = o.A
			}
			if !sideA && o.B >= 0 {
				pos = o.B
			}
		}
		return fmt.Sprintf("%d,0", pos)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}
