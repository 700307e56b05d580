package toml

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// maxNesting bounds how deep tables and arrays nest (see the toml-test
// suite's advice: real documents never come close, and an unbounded
// depth lets a short document cost a lot).
const maxNesting = 256

// Decode parses data as a TOML 1.0 document. See the package
// documentation for the Go types of the values.
func Decode(data []byte) (map[string]any, error) {
	p := &parser{data: data}
	if err := p.document(); err != nil {
		return nil, err
	}
	return p.root.export(), nil
}

// kind is how a table came to be, which decides what may still be added
// to it.
type kind uint8

const (
	// implicitTable was created as the parent of a [header]'s table; a
	// later [header] of its own may still define it (once).
	implicitTable kind = iota
	// headerTable was defined by its [header] or [[header]] (or is the
	// root).
	headerTable
	// dottedTable was created (or, being implicit, defined) by a dotted
	// key; dotted keys of the same section and headers of sub-tables may
	// add to it, a header of its own may not.
	dottedTable
	// inlineTable was written { ... } and is closed.
	inlineTable
)

// table is a table under construction. Its values are scalars, []any
// (static arrays, whose elements may be inline *table), *table and
// *tableArray.
type table struct {
	kind  kind
	depth int
	// name is the table's key path, for messages.
	name string
	keys map[string]any
}

// tableArray is an array of tables made by [[header]]s.
type tableArray struct {
	tables []*table
}

func (t *table) child(k kind, key string) *table {
	return &table{kind: k, depth: t.depth + 1, name: joinKey(t.name, key), keys: map[string]any{}}
}

// export turns the table into its final form, reusing its maps.
func (t *table) export() map[string]any {
	for k, v := range t.keys {
		t.keys[k] = exportValue(v)
	}
	return t.keys
}

func exportValue(v any) any {
	switch v := v.(type) {
	case *table:
		return v.export()
	case *tableArray:
		out := make([]any, len(v.tables))
		for i, t := range v.tables {
			out[i] = t.export()
		}
		return out
	case []any:
		for i, e := range v {
			v[i] = exportValue(e)
		}
		return v
	}
	return v
}

type parser struct {
	data []byte
	pos  int
	root *table
	// cur is the table key/value lines go to: the last header's.
	cur *table
}

// errorf returns an *Error at byte offset pos.
func (p *parser) errorf(pos int, format string, args ...any) error {
	pos = min(max(pos, 0), len(p.data))
	line, lineStart := 1, 0
	for i, c := range p.data[:pos] {
		if c == '\n' {
			line, lineStart = line+1, i+1
		}
	}
	return &Error{Line: line, Column: utf8.RuneCount(p.data[lineStart:pos]) + 1, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) eof() bool { return p.pos >= len(p.data) }

// peek is the byte at pos+off, or 0 past the end.
func (p *parser) peek(off int) byte {
	if p.pos+off < len(p.data) {
		return p.data[p.pos+off]
	}
	return 0
}

// found describes what is at pos, for "expected X, found Y" messages.
func (p *parser) found(pos int) string {
	if pos >= len(p.data) {
		return "end of file"
	}
	switch c := p.data[pos]; {
	case c == '\n' || c == '\r' && pos+1 < len(p.data) && p.data[pos+1] == '\n':
		return "end of line"
	case c < 0x20 || c == 0x7f:
		return fmt.Sprintf("control character %U", rune(c))
	}
	r, _ := utf8.DecodeRune(p.data[pos:])
	return strconv.QuoteRune(r)
}

func (p *parser) document() error {
	if i := invalidUTF8(p.data); i >= 0 {
		return p.errorf(i, "invalid UTF-8 (a TOML file must be UTF-8 text)")
	}
	p.root = &table{kind: headerTable, keys: map[string]any{}}
	p.cur = p.root
	if strings.HasPrefix(string(p.data), "\uFEFF") {
		p.pos = 3
	}
	for {
		p.skipSpace()
		if p.eof() {
			return nil
		}
		switch p.data[p.pos] {
		case '#', '\n', '\r':
		case '[':
			if err := p.header(); err != nil {
				return err
			}
		default:
			if err := p.keyValue(p.cur); err != nil {
				return err
			}
		}
		if err := p.endOfLine(); err != nil {
			return err
		}
	}
}

// invalidUTF8 is the offset of the first byte that is not UTF-8, or -1.
func invalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		if data[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

// skipSpace skips spaces and tabs.
func (p *parser) skipSpace() {
	for p.pos < len(p.data) && (p.data[p.pos] == ' ' || p.data[p.pos] == '\t') {
		p.pos++
	}
}

// newline consumes a newline (LF or CRLF) at pos, reporting whether there
// was one.
func (p *parser) newline() bool {
	switch {
	case p.peek(0) == '\n':
		p.pos++
	case p.peek(0) == '\r' && p.peek(1) == '\n':
		p.pos += 2
	default:
		return false
	}
	return true
}

// endOfLine consumes what may follow an expression: spaces, a comment and
// the newline (or the end of the file).
func (p *parser) endOfLine() error {
	p.skipSpace()
	if p.peek(0) == '#' {
		if err := p.comment(); err != nil {
			return err
		}
	}
	if p.eof() || p.newline() {
		return nil
	}
	return p.errorf(p.pos, "expected the end of the line, found %s", p.found(p.pos))
}

// comment skips a comment, up to (not including) the newline.
func (p *parser) comment() error {
	for p.pos++; p.pos < len(p.data); p.pos++ {
		c := p.data[p.pos]
		if c == '\n' || c == '\r' && p.peek(1) == '\n' {
			return nil
		}
		if c < 0x20 && c != '\t' || c == 0x7f {
			return p.errorf(p.pos, "control character %U in a comment", rune(c))
		}
	}
	return nil
}

// skipBlank skips whitespace, newlines and comments (inside arrays).
func (p *parser) skipBlank() error {
	for {
		p.skipSpace()
		switch {
		case p.peek(0) == '#':
			if err := p.comment(); err != nil {
				return err
			}
		case p.newline():
		default:
			return nil
		}
	}
}

// key parses a (possibly dotted) key and the spaces after it.
func (p *parser) key() ([]string, error) {
	var parts []string
	for {
		part, err := p.simpleKey()
		if err != nil {
			return nil, err
		}
		parts = append(parts, part)
		if len(parts) > maxNesting {
			return nil, p.errorf(p.pos, "key has more than %d parts", maxNesting)
		}
		p.skipSpace()
		if p.peek(0) != '.' {
			return parts, nil
		}
		p.pos++
		p.skipSpace()
	}
}

func isBare(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

func (p *parser) simpleKey() (string, error) {
	switch p.peek(0) {
	case '"':
		if p.peek(1) == '"' && p.peek(2) == '"' {
			return "", p.errorf(p.pos, "a multi-line string cannot be a key")
		}
		return p.basicString()
	case '\'':
		if p.peek(1) == '\'' && p.peek(2) == '\'' {
			return "", p.errorf(p.pos, "a multi-line string cannot be a key")
		}
		return p.literalString()
	}
	start := p.pos
	for p.pos < len(p.data) && isBare(p.data[p.pos]) {
		p.pos++
	}
	if p.pos == start {
		return "", p.errorf(p.pos, "expected a key, found %s", p.found(p.pos))
	}
	return string(p.data[start:p.pos]), nil
}

// joinKey appends key to a key path, quoting it unless it is bare.
func joinKey(path, key string) string {
	bare := key != ""
	for i := 0; i < len(key) && bare; i++ {
		bare = isBare(key[i])
	}
	if !bare {
		key = strconv.Quote(key)
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// header parses a [table] or [[array]] header and makes its table the
// current one.
func (p *parser) header() error {
	start := p.pos
	p.pos++
	array := p.peek(0) == '['
	if array {
		p.pos++
	}
	p.skipSpace()
	parts, err := p.key()
	if err != nil {
		return err
	}
	if p.peek(0) != ']' || array && p.peek(1) != ']' {
		want := "']'"
		if array {
			want = "']]'"
		}
		return p.errorf(p.pos, "expected %s to close the table header, found %s", want, p.found(p.pos))
	}
	p.pos++
	if array {
		p.pos++
	}

	t := p.root
	for _, k := range parts[:len(parts)-1] {
		switch v := t.keys[k].(type) {
		case nil:
			c := t.child(implicitTable, k)
			t.keys[k] = c
			t = c
		case *table:
			if v.kind == inlineTable {
				return p.errorf(start, "%s is an inline table, which cannot be extended", v.name)
			}
			t = v
		case *tableArray:
			t = v.tables[len(v.tables)-1]
		default:
			return p.errorf(start, "%s is already defined as %s, not a table", joinKey(t.name, k), typeName(v))
		}
	}
	last := parts[len(parts)-1]
	name := joinKey(t.name, last)
	if t.depth+1 > maxNesting {
		return p.errorf(start, "tables nest more than %d deep", maxNesting)
	}
	if array {
		switch v := t.keys[last].(type) {
		case nil:
			c := t.child(headerTable, last)
			t.keys[last] = &tableArray{tables: []*table{c}}
			p.cur = c
		case *tableArray:
			c := t.child(headerTable, last)
			v.tables = append(v.tables, c)
			p.cur = c
		case *table:
			return p.errorf(start, "[[%s]]: %s is already a table, not an array of tables", name, name)
		case []any:
			return p.errorf(start, "[[%s]]: %s is a static array (key = [...]), which cannot be appended to", name, name)
		default:
			return p.errorf(start, "[[%s]]: %s is already defined as %s", name, name, typeName(v))
		}
		return nil
	}
	switch v := t.keys[last].(type) {
	case nil:
		c := t.child(headerTable, last)
		t.keys[last] = c
		p.cur = c
	case *table:
		switch v.kind {
		case implicitTable:
			v.kind = headerTable
			p.cur = v
		case headerTable:
			return p.errorf(start, "table [%s] is defined twice", name)
		case dottedTable:
			return p.errorf(start, "table [%s] was already defined by dotted keys", name)
		default:
			return p.errorf(start, "table [%s] was already defined as an inline table", name)
		}
	case *tableArray:
		return p.errorf(start, "[%s]: %s is already an array of tables", name, name)
	default:
		return p.errorf(start, "[%s]: %s is already defined as %s", name, name, typeName(v))
	}
	return nil
}

// keyValue parses `key = value` into t.
func (p *parser) keyValue(t *table) error {
	start := p.pos
	parts, err := p.key()
	if err != nil {
		return err
	}
	if p.peek(0) != '=' {
		return p.errorf(p.pos, "expected '=' after the key, found %s", p.found(p.pos))
	}
	p.pos++
	p.skipSpace()
	for _, k := range parts[:len(parts)-1] {
		switch v := t.keys[k].(type) {
		case nil:
			if t.depth+1 > maxNesting {
				return p.errorf(start, "tables nest more than %d deep", maxNesting)
			}
			c := t.child(dottedTable, k)
			t.keys[k] = c
			t = c
		case *table:
			switch v.kind {
			case dottedTable:
				t = v
			case implicitTable:
				// Only created as the parent of a header's table so far:
				// the dotted key defines it (no header may any more).
				v.kind = dottedTable
				t = v
			case inlineTable:
				return p.errorf(start, "%s is an inline table, which cannot be extended", v.name)
			default:
				return p.errorf(start, "table %s was defined by a [header]; dotted keys cannot add to it", v.name)
			}
		case *tableArray:
			return p.errorf(start, "%s is an array of tables; dotted keys cannot add to it", joinKey(t.name, k))
		default:
			return p.errorf(start, "%s is already defined as %s, not a table", joinKey(t.name, k), typeName(v))
		}
	}
	last := parts[len(parts)-1]
	if v, dup := t.keys[last]; dup {
		return p.errorf(start, "%s is already defined (as %s)", joinKey(t.name, last), typeName(v))
	}
	v, err := p.value(t.depth+1, p.nameFor(t.name, last))
	if err != nil {
		return err
	}
	t.keys[last] = v
	return nil
}

// nameFor is the key path of the value about to be parsed under key in a
// table named path: only arrays and inline tables need it (for messages
// about their contents), so it is not built for other values.
func (p *parser) nameFor(path, key string) string {
	if c := p.peek(0); c == '[' || c == '{' {
		return joinKey(path, key)
	}
	return ""
}

// typeName names a value being decoded (a table under construction
// included) for messages.
func typeName(v any) string {
	switch v := v.(type) {
	case *tableArray:
		return "an array of tables"
	case *table:
		if v.kind == inlineTable {
			return "an inline table"
		}
		return "a table"
	}
	return TypeName(v)
}

// TypeName names the TOML type of a decoded value for messages ("a
// string", "an array", "a table", ...).
func TypeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	case time.Time, LocalDateTime, LocalDate, LocalTime:
		return "a date-time"
	}
	return fmt.Sprintf("%T", v)
}

// value parses a value at nesting depth; name is its key path, for
// messages.
func (p *parser) value(depth int, name string) (any, error) {
	if depth > maxNesting {
		return nil, p.errorf(p.pos, "tables and arrays nest more than %d deep", maxNesting)
	}
	switch c := p.peek(0); {
	case c == '"':
		if p.peek(1) == '"' && p.peek(2) == '"' {
			return p.multilineString('"')
		}
		return p.basicString()
	case c == '\'':
		if p.peek(1) == '\'' && p.peek(2) == '\'' {
			return p.multilineString('\'')
		}
		return p.literalString()
	case c == 't':
		return p.word("true", true)
	case c == 'f':
		return p.word("false", false)
	case c == '[':
		return p.array(depth, name)
	case c == '{':
		return p.inlineTable(depth, name)
	case c == 'i' || c == 'n' || c == '+' || c == '-' || '0' <= c && c <= '9':
		return p.numberOrDate()
	}
	return nil, p.errorf(p.pos, "expected a value, found %s", p.found(p.pos))
}

func (p *parser) word(w string, v bool) (any, error) {
	if !strings.HasPrefix(string(p.data[p.pos:min(p.pos+len(w), len(p.data))]), w) {
		return nil, p.errorf(p.pos, "expected a value, found %s (booleans are true and false)", p.found(p.pos))
	}
	p.pos += len(w)
	return v, nil
}

func (p *parser) array(depth int, name string) (any, error) {
	start := p.pos
	p.pos++
	arr := []any{}
	for {
		if err := p.skipBlank(); err != nil {
			return nil, err
		}
		if p.eof() {
			return nil, p.errorf(start, "unterminated array")
		}
		if p.peek(0) == ']' {
			p.pos++
			return arr, nil
		}
		elem := ""
		if c := p.peek(0); c == '[' || c == '{' {
			elem = fmt.Sprintf("%s[%d]", name, len(arr))
		}
		v, err := p.value(depth+1, elem)
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
		if err := p.skipBlank(); err != nil {
			return nil, err
		}
		switch p.peek(0) {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return arr, nil
		default:
			if p.eof() {
				return nil, p.errorf(start, "unterminated array")
			}
			return nil, p.errorf(p.pos, "expected ',' or ']' in an array, found %s", p.found(p.pos))
		}
	}
}

func (p *parser) inlineTable(depth int, name string) (any, error) {
	start := p.pos
	p.pos++
	t := &table{kind: inlineTable, depth: depth, name: name, keys: map[string]any{}}
	p.skipSpace()
	if p.peek(0) == '}' {
		p.pos++
		return t, nil
	}
	for {
		if p.eof() {
			return nil, p.errorf(start, "unterminated inline table")
		}
		if err := p.keyValue(t); err != nil {
			return nil, err
		}
		p.skipSpace()
		switch p.peek(0) {
		case ',':
			p.pos++
			p.skipSpace()
			if p.peek(0) == '}' {
				return nil, p.errorf(p.pos, "an inline table cannot have a trailing comma")
			}
		case '}':
			p.pos++
			return t, nil
		default:
			if p.eof() {
				return nil, p.errorf(start, "unterminated inline table")
			}
			return nil, p.errorf(p.pos, "expected ',' or '}' in an inline table, found %s (an inline table must be on one line)", p.found(p.pos))
		}
	}
}
