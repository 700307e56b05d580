package printable

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line is s with every character a terminal or an editor would act on or
// hide, newlines and tabs included, replaced by its escape: for one-line
// fields (titles, option names, labels).
func Line(s string) string { return escape(s, false) }

// Text is s escaped as Line does, except that newlines, tabs and the CR of
// a CRLF line end are kept: for fields shown as several lines.
func Text(s string) string { return escape(s, true) }

// Hidden reports whether Text would change s.
func Hidden(s string) bool { return next(s, true) >= 0 }

func escape(s string, multiline bool) string {
	i := next(s, multiline)
	if i < 0 {
		// The common case returns s itself: no copy, and a caller that
		// compares it with s (acp's cached encodings) finds it unchanged.
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i >= 0 {
		b.WriteString(s[:i])
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			writeByte(&b, s[i])
		} else {
			writeRune(&b, r)
		}
		s = s[i+size:]
		i = next(s, multiline)
	}
	b.WriteString(s)
	return b.String()
}

// next is the index of the first character of s that must be
// escaped, or -1.
func next(s string, multiline bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != 0x7f {
				i++
				continue
			}
			if multiline && (c == '\n' || c == '\t' || c == '\r' && i+1 < len(s) && s[i+1] == '\n') {
				i++
				continue
			}
			return i
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		if hides(r) && !(r == zwj && joinsEmoji(s[:i], s[i+size:])) {
			return i
		}
		i += size
	}
	return -1
}

const zwj = '\u200d'

// hides reports whether a character outside ASCII is one a terminal or an
// editor acts on or does not show: a C1 control, a format character
// (bidi controls, zero-width characters, the soft hyphen, tags), a line or
// paragraph separator, or anything in the tag block.
func hides(r rune) bool {
	switch {
	case r < 0xa0:
		return r >= 0x80
	case r == '\u2028' || r == '\u2029':
		return true
	case r >= 0xe0000 && r <= 0xe007f:
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// joinsEmoji reports whether a zero-width joiner between before and after
// is part of an emoji sequence (👩‍💻): an emoji, skin tone or emoji
// presentation selector before it and an emoji after it. Such a joiner
// only changes which picture is drawn; escaping it would break the emoji.
func joinsEmoji(before, after string) bool {
	p, _ := utf8.DecodeLastRuneInString(before)
	n, _ := utf8.DecodeRuneInString(after)
	return (unicode.Is(unicode.So, p) || p == '\ufe0f' || p >= 0x1f3fb && p <= 0x1f3ff) && unicode.Is(unicode.So, n)
}

const hexDigits = "0123456789abcdef"

func writeByte(b *strings.Builder, c byte) {
	b.WriteString(`\x`)
	b.WriteByte(hexDigits[c>>4])
	b.WriteByte(hexDigits[c&0xf])
}

func writeRune(b *strings.Builder, r rune) {
	switch r {
	case '\a':
		b.WriteString(`\a`)
	case '\b':
		b.WriteString(`\b`)
	case '\f':
		b.WriteString(`\f`)
	case '\n':
		b.WriteString(`\n`)
	case '\r':
		b.WriteString(`\r`)
	case '\t':
		b.WriteString(`\t`)
	case '\v':
		b.WriteString(`\v`)
	default:
		switch {
		case r < utf8.RuneSelf:
			writeByte(b, byte(r))
		case r <= 0xffff:
			b.WriteString(`\u`)
			for shift := 12; shift >= 0; shift -= 4 {
				b.WriteByte(hexDigits[r>>shift&0xf])
			}
		default:
			b.WriteString(`\U`)
			for shift := 28; shift >= 0; shift -= 4 {
				b.WriteByte(hexDigits[r>>shift&0xf])
			}
		}
	}
}
