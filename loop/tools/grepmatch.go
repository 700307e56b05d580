package tools

import (
	"bytes"
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// matcher finds the lines of a buffer that a Grep pattern matches. It
// looks for candidates over the whole buffer, not line by line: by
// bytes.Index for the literals one of which every match must contain (in
// a lower-cased copy of the buffer when the search ignores case), or else
// by one regexp search over the buffer; each candidate's line is then
// checked with the pattern itself, so the answer is the per-line answer.
type matcher struct {
	line *regexp.Regexp // the pattern, matched against one line
	buf  *regexp.Regexp // the same with (?m), searched over a buffer
	lits [][]byte       // one of these is in every match; nil: none known
	fold bool           // lits are lower case, searched in a lowered buffer
	// exact: a line matches exactly when it holds one of lits, so no
	// regexp runs at all.
	exact bool
	// endLine: the pattern has "$", which a line ending in \r meets only
	// per line (the line is matched without its \r); a buffer with \r is
	// then searched line by line.
	endLine bool
	// textEdges: \A or \z, which mean the line's edges per line but the
	// buffer's over a buffer: always line by line.
	textEdges bool
}

// newMatcher compiles a Grep pattern. In multiline mode only line is
// set, with "." matching newlines too, and is matched over a whole file.
func newMatcher(pattern string, ignoreCase, multiline bool) (*matcher, error) {
	flags := ""
	if ignoreCase {
		flags = "(?i)"
	}
	if multiline {
		re, err := regexp.Compile("(?ms)" + flags + pattern)
		return &matcher{line: re}, err
	}
	line, err := regexp.Compile(flags + pattern)
	if err != nil {
		return nil, err
	}
	m := &matcher{line: line, buf: regexp.MustCompile("(?m)" + flags + pattern)}
	if multi, err := syntax.Parse("(?m)"+flags+pattern, syntax.Perl); err == nil {
		walkSyntax(multi, func(re *syntax.Regexp) {
			switch re.Op {
			case syntax.OpEndLine:
				m.endLine = true
			case syntax.OpBeginText, syntax.OpEndText:
				m.textEdges = true
			}
		})
	}
	parsed, err := syntax.Parse(flags+pattern, syntax.Perl)
	if err != nil {
		return m, nil
	}
	parsed = parsed.Simplify()
	lits, fold, ok := requiredLiterals(parsed)
	if !ok || len(lits) == 0 || len(lits) > 16 {
		return m, nil
	}
	m.fold = fold
	for _, l := range lits {
		if l == "" {
			return m, nil // an empty literal filters nothing
		}
		b := []byte(l)
		if fold {
			b = bytes.ToLower(b)
		}
		m.lits = append(m.lits, b)
	}
	m.exact = isLiteralSet(parsed) && !slices.ContainsFunc(m.lits, func(l []byte) bool { return bytes.IndexByte(l, '\n') >= 0 })
	return m, nil
}

func walkSyntax(re *syntax.Regexp, f func(*syntax.Regexp)) {
	f(re)
	for _, sub := range re.Sub {
		walkSyntax(sub, f)
	}
}

// requiredLiterals returns literals one of which every match of re holds,
// and whether they are to be compared ignoring (ASCII) case; ok false when
// none are known. Literals that ignore case are only taken when ASCII.
func requiredLiterals(re *syntax.Regexp) (lits []string, fold, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		s := string(re.Rune)
		fold = re.Flags&syntax.FoldCase != 0
		if fold && !isASCII(s) {
			return nil, false, false
		}
		return []string{s}, fold, true
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
	case syntax.OpConcat:
		best := -1
		for _, sub := range re.Sub {
			l, f, ok := requiredLiterals(sub)
			if ok && shortest(l) > best {
				lits, fold, best = l, f, shortest(l)
			}
		}
		return lits, fold, best >= 0
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			l, f, ok := requiredLiterals(sub)
			if !ok {
				return nil, false, false
			}
			lits, fold = append(lits, l...), fold || f
		}
		return lits, fold, true
	}
	return nil, false, false
}

// isLiteralSet reports whether re is a literal or an alternation of
// literals: then a line matches exactly when it holds one of them.
func isLiteralSet(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		return true
	case syntax.OpCapture:
		return isLiteralSet(re.Sub[0])
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if sub.Op != syntax.OpLiteral {
				return false
			}
		}
		return true
	}
	return false
}

func shortest(lits []string) int {
	n := math.MaxInt
	for _, l := range lits {
		n = min(n, len(l))
	}
	return n
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// foldTraps are the non-ASCII characters that match an ASCII letter when
// case is ignored (KELVIN SIGN for k, LONG S for s): a lowered-ASCII
// search would miss them, so a buffer holding one is matched line by line.
var foldTraps = [][]byte{[]byte("\u212a"), []byte("\u017f")}

// scan calls visit with the number and text (without its line ending) of
// each matching line of region, a buffer of whole lines whose first is
// line first; visit returns false to stop. lowered is scratch space for a
// search that ignores case.
func (m *matcher) scan(region []byte, first int, lowered *[]byte, visit func(n int, line []byte) bool) {
	perLine := m.textEdges || m.endLine && bytes.IndexByte(region, '\r') >= 0
	hay, lits := region, m.lits
	if lits != nil && m.fold {
		if bytes.IndexByte(region, 0xe2) >= 0 || bytes.IndexByte(region, 0xc5) >= 0 {
			for _, t := range foldTraps {
				if bytes.Contains(region, t) {
					lits = nil
				}
			}
		}
		if lits != nil {
			if cap(*lowered) < len(region) {
				*lowered = make([]byte, len(region))
			}
			hay = (*lowered)[:len(region)]
			lowerASCII(hay, region)
		}
	}
	next := make([]int, len(lits))
	for i := range next {
		next[i] = -1
	}
	pos, counted, n := 0, 0, first
	for pos < len(region) {
		var p int
		switch {
		case perLine:
			p = pos
		case lits != nil:
			p = nextLiteral(hay, lits, next, pos)
		default:
			loc := m.buf.FindIndex(region[pos:])
			p = -1
			if loc != nil {
				p = pos + loc[0]
			}
		}
		if p < 0 || p >= len(region) {
			return
		}
		start := bytes.LastIndexByte(region[:p], '\n') + 1
		end := len(region)
		if i := bytes.IndexByte(region[p:], '\n'); i >= 0 {
			end = p + i
		}
		n += bytes.Count(region[counted:start], []byte{'\n'})
		counted = start
		line := bytes.TrimSuffix(region[start:end], []byte{'\r'})
		if (m.exact && lits != nil && !perLine) || m.line.Match(line) {
			if !visit(n, line) {
				return
			}
		}
		pos = end + 1
	}
}

// nextLiteral is the first position at or after pos where one of lits
// starts in hay, or -1; next caches each literal's next position.
func nextLiteral(hay []byte, lits [][]byte, next []int, pos int) int {
	best := -1
	for i, lit := range lits {
		if next[i] != math.MaxInt && next[i] < pos {
			next[i] = math.MaxInt
			if j := bytes.Index(hay[pos:], lit); j >= 0 {
				next[i] = pos + j
			}
		}
		if next[i] != math.MaxInt && (best < 0 || next[i] < best) {
			best = next[i]
		}
	}
	return best
}

// lowerASCII writes src lower-cased (ASCII letters only) into dst.
func lowerASCII(dst, src []byte) {
	for i, c := range src {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst[i] = c
	}
}
