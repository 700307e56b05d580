package toml

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

func isControl(c byte) bool { return c < 0x20 && c != '\t' || c == 0x7f }

// basicString parses "...", with escapes, on one line.
func (p *parser) basicString() (string, error) {
	start := p.pos
	p.pos++
	var sb strings.Builder
	for {
		if p.eof() {
			return "", p.errorf(start, "unterminated string")
		}
		switch c := p.data[p.pos]; {
		case c == '"':
			p.pos++
			return sb.String(), nil
		case c == '\\':
			if err := p.escape(&sb, false); err != nil {
				return "", err
			}
		case c == '\n' || c == '\r':
			return "", p.errorf(start, "unterminated string (a string in \"...\" cannot span lines; use \"\"\"...\"\"\")")
		case isControl(c):
			return "", p.errorf(p.pos, "control character %U in a string must be escaped", rune(c))
		default:
			sb.WriteByte(c)
			p.pos++
		}
	}
}

// literalString parses '...': no escapes, on one line.
func (p *parser) literalString() (string, error) {
	start := p.pos
	p.pos++
	for i := p.pos; i < len(p.data); i++ {
		switch c := p.data[i]; {
		case c == '\'':
			p.pos = i + 1
			return string(p.data[start+1 : i]), nil
		case c == '\n' || c == '\r':
			return "", p.errorf(start, "unterminated literal string (a string in '...' cannot span lines; use '''...''')")
		case isControl(c):
			return "", p.errorf(i, "control character %U in a literal string", rune(c))
		}
	}
	return "", p.errorf(start, "unterminated literal string")
}

// multilineString parses a multi-line basic string (q is '"') or a
// multi-line literal string (q is an apostrophe).
func (p *parser) multilineString(q byte) (string, error) {
	start := p.pos
	p.pos += 3
	p.newline() // a newline right after the opening delimiter is trimmed
	var sb strings.Builder
	for {
		if p.eof() {
			return "", p.errorf(start, "unterminated multi-line string")
		}
		switch c := p.data[p.pos]; {
		case c == q:
			n := 0
			for p.pos+n < len(p.data) && p.data[p.pos+n] == q {
				n++
			}
			if n >= 3 {
				// Up to two quotes may sit right before the closing
				// delimiter; more would be three quotes inside.
				if n > 5 {
					return "", p.errorf(p.pos, "three or more quotes in a row inside a multi-line string must be escaped")
				}
				sb.WriteString(strings.Repeat(string(q), n-3))
				p.pos += n
				return sb.String(), nil
			}
			sb.WriteString(strings.Repeat(string(q), n))
			p.pos += n
		case c == '\\' && q == '"':
			if err := p.escape(&sb, true); err != nil {
				return "", err
			}
		case c == '\n':
			sb.WriteByte(c)
			p.pos++
		case c == '\r' && p.peek(1) == '\n':
			sb.WriteString("\r\n")
			p.pos += 2
		case isControl(c):
			return "", p.errorf(p.pos, "control character %U in a string must be escaped", rune(c))
		default:
			sb.WriteByte(c)
			p.pos++
		}
	}
}

// escape decodes the escape sequence at pos (a backslash) into sb. In a
// multi-line string, a backslash ending a line removes the newline and
// the whitespace after it.
func (p *parser) escape(sb *strings.Builder, multiline bool) error {
	start := p.pos
	p.pos++
	if p.eof() {
		return p.errorf(start, "unterminated string")
	}
	c := p.data[p.pos]
	p.pos++
	switch c {
	case 'b':
		sb.WriteByte('\b')
	case 't':
		sb.WriteByte('\t')
	case 'n':
		sb.WriteByte('\n')
	case 'f':
		sb.WriteByte('\f')
	case 'r':
		sb.WriteByte('\r')
	case '"':
		sb.WriteByte('"')
	case '\\':
		sb.WriteByte('\\')
	case 'u', 'U':
		n := 4
		if c == 'U' {
			n = 8
		}
		if p.pos+n > len(p.data) {
			return p.errorf(start, "\\%c needs %d hexadecimal digits", c, n)
		}
		hex := string(p.data[p.pos : p.pos+n])
		for i := 0; i < n; i++ {
			if !isHex(hex[i]) {
				return p.errorf(start, "\\%c needs %d hexadecimal digits, found %q", c, n, hex)
			}
		}
		v, _ := strconv.ParseUint(hex, 16, 32)
		if v > utf8.MaxRune || 0xd800 <= v && v <= 0xdfff {
			return p.errorf(start, "\\%c%s is not a Unicode scalar value", c, hex)
		}
		sb.WriteRune(rune(v))
		p.pos += n
	case ' ', '\t', '\n', '\r':
		if !multiline {
			return p.errorf(start, "invalid escape sequence: a backslash may only end a line in a \"\"\"...\"\"\" string")
		}
		p.pos--
		p.skipSpace()
		if !p.newline() {
			return p.errorf(start, "invalid escape sequence: a backslash may only be followed by whitespace at the end of a line")
		}
		for {
			p.skipSpace()
			if !p.newline() {
				return nil
			}
		}
	default:
		r, _ := utf8.DecodeRune(p.data[p.pos-1:])
		return p.errorf(start, "invalid escape sequence \\%s", describeEscape(r))
	}
	return nil
}

func describeEscape(r rune) string {
	if r < 0x20 || r == 0x7f {
		return strconv.QuoteRune(r)
	}
	return string(r)
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// digitsAt reports whether the n bytes at pos+off are decimal digits.
func (p *parser) digitsAt(off, n int) bool {
	for i := range n {
		if !isDigit(p.peek(off + i)) {
			return false
		}
	}
	return true
}

// numberOrDate parses an integer, a float, or a date and/or time.
func (p *parser) numberOrDate() (any, error) {
	switch {
	case p.digitsAt(0, 4) && p.peek(4) == '-':
		return p.dateTime()
	case p.digitsAt(0, 2) && p.peek(2) == ':':
		t, err := p.timeOfDay()
		if err != nil {
			return nil, err
		}
		return t, nil
	}
	start := p.pos
	for p.pos < len(p.data) && (isBare(p.data[p.pos]) || p.data[p.pos] == '+' || p.data[p.pos] == '.') {
		p.pos++
	}
	v, msg := parseNumber(string(p.data[start:p.pos]))
	if msg != "" {
		return nil, p.errorf(start, "%s", msg)
	}
	return v, nil
}

// parseNumber parses an integer or float token; msg says what is wrong
// with an invalid one.
func parseNumber(tok string) (v any, msg string) {
	invalid := "invalid number " + strconv.Quote(tok)
	switch tok {
	case "inf", "+inf":
		return math.Inf(1), ""
	case "-inf":
		return math.Inf(-1), ""
	case "nan", "+nan":
		return math.NaN(), ""
	case "-nan":
		return math.Copysign(math.NaN(), -1), ""
	}
	if len(tok) > 2 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'o' || tok[1] == 'b') {
		base, digit := 16, isHex
		switch tok[1] {
		case 'o':
			base, digit = 8, func(c byte) bool { return '0' <= c && c <= '7' }
		case 'b':
			base, digit = 2, func(c byte) bool { return c == '0' || c == '1' }
		}
		if end, ok := digitRun(tok, 2, digit); !ok || end != len(tok) {
			return nil, invalid
		}
		u, err := strconv.ParseUint(strings.ReplaceAll(tok[2:], "_", ""), base, 64)
		if err != nil || u > math.MaxInt64 {
			return nil, "integer " + tok + " does not fit in 64 bits"
		}
		return int64(u), ""
	}
	i := 0
	if tok != "" && (tok[0] == '+' || tok[0] == '-') {
		i++
	}
	end, ok := digitRun(tok, i, isDigit)
	if !ok {
		return nil, invalid
	}
	if tok[i] == '0' && end > i+1 {
		return nil, invalid + " (leading zeros are not allowed)"
	}
	float := false
	if end < len(tok) && tok[end] == '.' {
		float = true
		if end, ok = digitRun(tok, end+1, isDigit); !ok {
			return nil, invalid
		}
	}
	if end < len(tok) && (tok[end] == 'e' || tok[end] == 'E') {
		float = true
		end++
		if end < len(tok) && (tok[end] == '+' || tok[end] == '-') {
			end++
		}
		if end, ok = digitRun(tok, end, isDigit); !ok {
			return nil, invalid
		}
	}
	if end != len(tok) {
		return nil, invalid
	}
	s := strings.ReplaceAll(tok, "_", "")
	if !float {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, "integer " + tok + " does not fit in 64 bits"
		}
		return n, ""
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && math.IsInf(f, 0) {
		return nil, "float " + tok + " is out of range"
	}
	return f, ""
}

// digitRun scans digits separated by single underscores from s[i]
// (digit, then (_? digit)*), returning where the run ends; ok is false
// when there is no digit at i or an underscore is not between digits.
func digitRun(s string, i int, digit func(byte) bool) (end int, ok bool) {
	if i >= len(s) || !digit(s[i]) {
		return i, false
	}
	for i++; i < len(s); i++ {
		switch {
		case digit(s[i]):
		case s[i] == '_':
			if i+1 >= len(s) || !digit(s[i+1]) {
				return i, false
			}
		default:
			return i, true
		}
	}
	return i, true
}

// num2 parses the two digits at pos+off (already checked to be digits).
func (p *parser) num2(off int) int {
	return int(p.peek(off)-'0')*10 + int(p.peek(off+1)-'0')
}

// dateTime parses a local date, a local date-time or an offset date-time.
func (p *parser) dateTime() (any, error) {
	start := p.pos
	if !p.digitsAt(5, 2) || p.peek(7) != '-' || !p.digitsAt(8, 2) {
		return nil, p.errorf(start, "invalid date (want YYYY-MM-DD)")
	}
	year := p.num2(0)*100 + p.num2(2)
	month, day := p.num2(5), p.num2(8)
	if month < 1 || month > 12 {
		return nil, p.errorf(start, "invalid date: month %02d", month)
	}
	if day < 1 || day > daysIn(year, time.Month(month)) {
		return nil, p.errorf(start, "invalid date: %s has no day %02d", time.Month(month), day)
	}
	p.pos += 10
	d := LocalDate{Year: year, Month: time.Month(month), Day: day}
	switch c := p.peek(0); {
	case c == 'T' || c == 't':
		p.pos++
	case c == ' ' && p.digitsAt(1, 2) && p.peek(3) == ':':
		p.pos++
	default:
		return d, nil
	}
	t, err := p.timeOfDay()
	if err != nil {
		return nil, err
	}
	var loc *time.Location
	switch c := p.peek(0); c {
	case 'Z', 'z':
		p.pos++
		loc = time.UTC
	case '+', '-':
		if !p.digitsAt(1, 2) || p.peek(3) != ':' || !p.digitsAt(4, 2) {
			return nil, p.errorf(p.pos, "invalid time offset (want Z, +HH:MM or -HH:MM)")
		}
		h, m := p.num2(1), p.num2(4)
		if h > 23 || m > 59 {
			return nil, p.errorf(p.pos, "invalid time offset %s", p.data[p.pos:p.pos+6])
		}
		off := (h*60 + m) * 60
		if c == '-' {
			off = -off
		}
		p.pos += 6
		loc = time.FixedZone("", off)
	default:
		return LocalDateTime{Date: d, Time: t}, nil
	}
	return time.Date(d.Year, d.Month, d.Day, t.Hour, t.Minute, t.Second, t.Nanosecond, loc), nil
}

func daysIn(year int, m time.Month) int {
	return time.Date(year, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// timeOfDay parses HH:MM:SS with optional fractional seconds.
func (p *parser) timeOfDay() (LocalTime, error) {
	start := p.pos
	if !p.digitsAt(0, 2) || p.peek(2) != ':' || !p.digitsAt(3, 2) || p.peek(5) != ':' || !p.digitsAt(6, 2) {
		return LocalTime{}, p.errorf(start, "invalid time (want HH:MM:SS)")
	}
	t := LocalTime{Hour: p.num2(0), Minute: p.num2(3), Second: p.num2(6)}
	if t.Hour > 23 || t.Minute > 59 || t.Second > 60 {
		return LocalTime{}, p.errorf(start, "invalid time %s", p.data[start:start+8])
	}
	p.pos += 8
	if p.peek(0) == '.' {
		if !isDigit(p.peek(1)) {
			return LocalTime{}, p.errorf(p.pos, "invalid time: '.' must be followed by digits")
		}
		p.pos++
		scale := 100_000_000
		for ; isDigit(p.peek(0)); p.pos++ {
			t.Nanosecond += int(p.peek(0)-'0') * scale // digits past nanoseconds are truncated
			scale /= 10
		}
	}
	return t, nil
}
