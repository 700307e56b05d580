package tools

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// globPattern is a compiled glob with doublestar semantics over
// slash-separated relative paths: "**" as a whole segment spans any number
// of directories (zero included), "*", "?" and "[...]" (with "!" or "^" to
// negate) match within one segment, "\" escapes, and "{a,b}" gives
// alternatives, which may nest.
type globPattern struct {
	alts [][]string // segments of each alternative
}

// maxBraceAlternatives bounds brace expansion.
const maxBraceAlternatives = 1024

func compileGlob(pattern string) (*globPattern, error) {
	if pattern == "" {
		return nil, errors.New("empty pattern")
	}
	alts, err := expandBraces(pattern)
	if err != nil {
		return nil, err
	}
	g := &globPattern{}
	for _, alt := range alts {
		var segs []string
		for _, s := range strings.Split(alt, "/") {
			switch {
			case s == "" || s == ".":
				continue
			case s == "**":
				if len(segs) > 0 && segs[len(segs)-1] == "**" {
					continue
				}
			default:
				s = negateCaret(s)
				if _, err := path.Match(s, ""); err != nil {
					return nil, fmt.Errorf("bad pattern segment %q", s)
				}
			}
			segs = append(segs, s)
		}
		if len(segs) > 0 {
			g.alts = append(g.alts, segs)
		}
	}
	if len(g.alts) == 0 {
		return nil, fmt.Errorf("pattern %q matches nothing", pattern)
	}
	return g, nil
}

// match reports whether the slash-separated relative path matches.
func (g *globPattern) match(rel string) bool {
	name := splitSlash(rel)
	for _, segs := range g.alts {
		if matchSegs(segs, name) {
			return true
		}
	}
	return false
}

// mayMatchBelow reports whether some path strictly below the directory rel
// could match, so that a walk can skip directories that cannot.
func (g *globPattern) mayMatchBelow(rel string) bool {
	dir := splitSlash(rel)
	for _, segs := range g.alts {
		if mayDescend(segs, dir) {
			return true
		}
	}
	return false
}

func splitSlash(p string) []string {
	return strings.FieldsFunc(p, func(r rune) bool { return r == '/' })
}

// matchSegs reports whether the path segments name match the pattern
// segments pat. It runs the pattern as a set of states (the pattern
// positions reachable so far) over the segments, so its time is linear
// in the path for any number of "**" (a backtracking match is exponential
// in them: "**/*/**/*/..." over a deep tree).
func matchSegs(pat, name []string) bool {
	cur := make([]bool, len(pat)+1)
	next := make([]bool, len(pat)+1)
	cur[0] = true
	spanStars(pat, cur)
	for _, seg := range name {
		clear(next)
		alive := false
		for i, p := range pat {
			if !cur[i] {
				continue
			}
			if p == "**" {
				next[i], alive = true, true // "**" takes this segment too
			} else if ok, _ := path.Match(p, seg); ok {
				next[i+1], alive = true, true
			}
		}
		if !alive {
			return false
		}
		spanStars(pat, next)
		cur, next = next, cur
	}
	return cur[len(pat)]
}

// spanStars adds to states the positions after each "**" it holds, as
// "**" may match no segment.
func spanStars(pat []string, states []bool) {
	for i, p := range pat {
		if states[i] && p == "**" {
			states[i+1] = true
		}
	}
}

func mayDescend(pat, dir []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" || len(dir) == 0 {
			return true
		}
		if ok, _ := path.Match(pat[0], dir[0]); !ok {
			return false
		}
		pat, dir = pat[1:], dir[1:]
	}
	return false
}

// hasMeta reports whether a segment has glob syntax.
func hasMeta(s string) bool {
	return strings.ContainsAny(s, `*?[{\`)
}

// expandBraces expands the first top-level {a,b,...} group and recurses.
// Braces inside [...] and escaped braces are literal; an unclosed brace is
// literal too.
func expandBraces(p string) ([]string, error) {
	open, close := -1, -1
	var commas []int
	depth := 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '[':
			if j := classEnd(p, i); j > 0 {
				i = j
			}
		case '{':
			if depth == 0 {
				open = i
				commas = commas[:0]
			}
			depth++
		case ',':
			if depth == 1 {
				commas = append(commas, i)
			}
		case '}':
			if depth == 0 {
				continue
			}
			depth--
			if depth == 0 {
				close = i
			}
		}
		if close >= 0 {
			break
		}
	}
	if open < 0 || close < 0 {
		return []string{p}, nil
	}
	prefix, suffix := p[:open], p[close+1:]
	var out []string
	start := open + 1
	for _, c := range append(commas, close) {
		sub, err := expandBraces(prefix + p[start:c] + suffix)
		if err != nil {
			return nil, err
		}
		out = append(out, sub...)
		if len(out) > maxBraceAlternatives {
			return nil, fmt.Errorf("pattern has more than %d brace alternatives", maxBraceAlternatives)
		}
		start = c + 1
	}
	return out, nil
}

// classEnd returns the index of the "]" closing the class that opens at
// p[i], or -1.
func classEnd(p string, i int) int {
	j := i + 1
	if j < len(p) && (p[j] == '!' || p[j] == '^') {
		j++
	}
	if j < len(p) && p[j] == ']' {
		j++
	}
	for ; j < len(p); j++ {
		switch p[j] {
		case '\\':
			j++
		case ']':
			return j
		}
	}
	return -1
}

// negateCaret rewrites the shell's class negation "[!...]" into the "[^...]"
// that path.Match understands.
func negateCaret(seg string) string {
	if !strings.Contains(seg, "[!") {
		return seg
	}
	b := []byte(seg)
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '[':
			if i+1 < len(b) && b[i+1] == '!' {
				b[i+1] = '^'
			}
			if j := classEnd(string(b), i); j > 0 {
				i = j
			}
		}
	}
	return string(b)
}
