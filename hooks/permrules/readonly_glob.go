package permrules

import (
	"os"
	"strings"
)

// The read-only allowance must list every file bash would hand a command
// for a glob, so the match below is bash's (5.x, extglob, dotglob,
// nocaseglob and globstar off) rather than Go's filepath.Match, which
// reads [!a] as the set {!, a} and knows no [[:class:]]. Where bash's
// answer depends on the locale it matches more, never less; where it
// cannot tell at all it gives up and the command is asked about.

// globToken is one element of a glob component: a literal byte, '*', '?'
// or a bracket expression.
type globToken struct {
	kind byte // 'l', '*', '?' or '['
	c    byte
	neg  bool
	// The ASCII bytes a bracket expression lists in some locale (maybe)
	// and in every locale (sure): [a-c] is a, b, c by code point and
	// a A b B c by collation; [!a-c] must then match neither.
	maybe, sure *[128]bool
}

// globHasMeta reports whether a pattern (quoted characters escaped) has
// a wildcard bash would expand.
func globHasMeta(p string) bool {
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return true
		}
	}
	return false
}

// globUnescape is the name a pattern without wildcards stands for.
func globUnescape(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' && i+1 < len(p) {
			i++
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// globEscape makes a path a pattern that matches only itself.
func globEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(`*?[]\`, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// parseGlob reads one component of a pattern; ok is false where bash's
// answer cannot be known here.
func parseGlob(p string) (toks []globToken, ok bool) {
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '\\':
			if i+1 < len(p) {
				i++
			}
			toks = append(toks, globToken{kind: 'l', c: p[i]})
		case '*':
			if len(toks) == 0 || toks[len(toks)-1].kind != '*' {
				toks = append(toks, globToken{kind: '*'}) // ** is * without globstar
			}
		case '?':
			toks = append(toks, globToken{kind: '?'})
		case '[':
			t, end, ok := parseBracket(p, i)
			if !ok {
				return nil, false
			}
			if end < 0 { // no closing ]: a plain [
				toks = append(toks, globToken{kind: 'l', c: c})
				continue
			}
			toks = append(toks, t)
			i = end
		default:
			toks = append(toks, globToken{kind: 'l', c: c})
		}
	}
	return toks, true
}

// globClasses are the POSIX classes bash knows, over ASCII (where every
// locale agrees).
var globClasses = map[string]func(c byte) bool{
	"alpha":  func(c byte) bool { return isLetter(c) },
	"digit":  func(c byte) bool { return c >= '0' && c <= '9' },
	"alnum":  func(c byte) bool { return isLetter(c) || c >= '0' && c <= '9' },
	"upper":  func(c byte) bool { return c >= 'A' && c <= 'Z' },
	"lower":  func(c byte) bool { return c >= 'a' && c <= 'z' },
	"space":  func(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' },
	"blank":  func(c byte) bool { return c == ' ' || c == '\t' },
	"punct":  func(c byte) bool { return c > ' ' && c < 127 && !isLetter(c) && (c < '0' || c > '9') },
	"print":  func(c byte) bool { return c >= ' ' && c < 127 },
	"graph":  func(c byte) bool { return c > ' ' && c < 127 },
	"cntrl":  func(c byte) bool { return c < ' ' || c == 127 },
	"xdigit": func(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' },
	"word":   func(c byte) bool { return isLetter(c) || c >= '0' && c <= '9' || c == '_' },
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// parseBracket reads the bracket expression starting at p[i] == '['. end
// is the index of its closing ], -1 when there is none (the [ is then a
// plain character, as in bash).
func parseBracket(p string, i int) (t globToken, end int, ok bool) {
	t = globToken{kind: '[', maybe: new([128]bool), sure: new([128]bool)}
	add := func(c byte, sure bool) {
		t.maybe[c] = true
		t.sure[c] = t.sure[c] || sure
	}
	j := i + 1
	if j < len(p) && (p[j] == '!' || p[j] == '^') {
		t.neg = true
		j++
	}
	// item reads one member at j: a character (maybe escaped) or a
	// [.c.] symbol, which may start or end a range; class is set for
	// [:name:] and [=c=], which may not.
	item := func() (c byte, class bool, ok bool) {
		if p[j] == '[' && j+1 < len(p) && strings.IndexByte(":=.", p[j+1]) >= 0 {
			d := p[j+1]
			k := strings.Index(p[j+2:], string(d)+"]")
			if k < 0 {
				return 0, false, false
			}
			name := p[j+2 : j+2+k]
			j += 2 + k + 2
			switch {
			case d == ':':
				in, known := globClasses[name]
				if !known {
					return 0, false, false
				}
				for b := range 128 {
					if in(byte(b)) {
						add(byte(b), true)
					}
				}
				return 0, true, true
			case len(name) != 1 || name[0] >= 128:
				return 0, false, false // a multi-character element, or a locale's
			case d == '=':
				// A letter's equivalence class holds its other case in
				// some locales.
				add(name[0], true)
				if isLetter(name[0]) {
					add(name[0]^0x20, false)
				}
				return 0, true, true
			}
			return name[0], false, true
		}
		if p[j] == '\\' && j+1 < len(p) {
			j++
		}
		c = p[j]
		j++
		return c, false, true
	}
	for first := true; ; first = false {
		if j >= len(p) {
			return globToken{}, -1, true
		}
		if p[j] == ']' && !first {
			return t, j, true
		}
		lo, class, ok := item()
		if !ok {
			return globToken{}, 0, false
		}
		if class {
			if j+1 < len(p) && p[j] == '-' && p[j+1] != ']' {
				return globToken{}, 0, false // a class cannot start a range
			}
			continue
		}
		if j+1 < len(p) && p[j] == '-' && p[j+1] != ']' {
			j++
			if p[j] == '[' && j+1 < len(p) && (p[j+1] == ':' || p[j+1] == '=') {
				return globToken{}, 0, false
			}
			hi, _, ok := item()
			if !ok || !globRange(add, lo, hi) {
				return globToken{}, 0, false
			}
			continue
		}
		if lo < 128 {
			add(lo, true)
		}
	}
}

// globRange adds the range lo-hi. bash 5 orders ranges by code point,
// older bash (or globasciiranges off) by the locale's collation, where
// letters of both cases interleave (a A b B ...): a range of letters
// may hold both cases, surely only its code points when both ends have
// the same case; digits agree in every order; any other range is
// refused.
func globRange(add func(c byte, sure bool), lo, hi byte) bool {
	switch {
	case lo >= 128 || hi >= 128:
		return false
	case isLetter(lo) && isLetter(hi):
		for c := lo | 0x20; c <= hi|0x20; c++ {
			add(c, false)
			add(c^0x20, false)
		}
	case lo >= '0' && lo <= '9' && hi >= '0' && hi <= '9':
	default:
		return false
	}
	sameCase := lo&0x20 == hi&0x20
	for c := lo; c <= hi; c++ {
		add(c, sameCase)
	}
	return true
}

// bashGlobMatch reports whether bash may match the file name against one
// component of a pattern; ok is false when that cannot be told. A
// leading dot must be matched by a literal dot. A name with non-ASCII
// bytes is read loosely: ? and a bracket expression take any one
// character of 1 to 4 bytes, since bash reads bytes or characters by
// locale and classes differ by locale there.
func bashGlobMatch(pattern, name string) (matched, ok bool) {
	toks, ok := parseGlob(pattern)
	if !ok {
		return false, false
	}
	if strings.HasPrefix(name, ".") && (len(toks) == 0 || toks[0].kind != 'l' || toks[0].c != '.') {
		return false, true
	}
	// at[n] is whether the tokens so far can match name[:n].
	at := make([]bool, len(name)+1)
	at[0] = true
	for _, t := range toks {
		next := make([]bool, len(name)+1)
		for n, reached := range at {
			if !reached {
				continue
			}
			switch t.kind {
			case '*':
				for k := n; k <= len(name); k++ {
					next[k] = true
				}
			case 'l':
				if n < len(name) && name[n] == t.c {
					next[n+1] = true
				}
			default:
				if n >= len(name) {
					continue
				}
				if c := name[n]; c < 128 {
					next[n+1] = t.kind == '?' || !t.neg && t.maybe[c] || t.neg && !t.sure[c]
					continue
				}
				for k := 1; k <= 4 && n+k <= len(name); k++ {
					next[n+k] = true
				}
			}
		}
		at = next
	}
	return at[len(name)], true
}

// boundedGlob lists the files a pattern (absolute, quoted characters
// escaped, not cleaned: bash opens a/l/.. as written) matches, as bash
// would. It gives up, ok false, on a pattern it cannot match, one that
// may match "..", past maxGlobMatches matches or past globBudget
// directory entries read.
func boundedGlob(pattern string) (matches []string, ok bool) {
	budget := globBudget
	prefixes := []string{""}
	for _, comp := range strings.Split(pattern, "/")[1:] {
		if comp == "" {
			continue
		}
		var next []string
		for _, pre := range prefixes {
			if !globHasMeta(comp) {
				if _, err := os.Lstat(pre + "/" + globUnescape(comp)); err == nil {
					next = append(next, pre+"/"+globUnescape(comp))
				}
				continue
			}
			// bash before 5.2 matches .* against "..", which leads
			// out of wherever the glob starts.
			if m, ok := bashGlobMatch(comp, ".."); m || !ok {
				return nil, false
			}
			f, err := os.Open(pre + "/")
			if err != nil {
				continue
			}
			names, err := f.Readdirnames(budget + 1)
			f.Close()
			if budget -= len(names); budget < 0 {
				return nil, false
			}
			if err != nil && len(names) == 0 {
				continue // not a directory, or unreadable
			}
			for _, name := range names {
				m, ok := bashGlobMatch(comp, name)
				if !ok {
					return nil, false
				}
				if m {
					next = append(next, pre+"/"+name)
				}
			}
		}
		if len(next) > maxGlobMatches {
			return nil, false
		}
		prefixes = next
	}
	return prefixes, true
}
