package jsonrepair

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ErrUnrepairable is returned when the text is not a truncated prefix of a
// JSON value that Repair knows how to complete.
var ErrUnrepairable = errors.New("jsonrepair: not a truncated JSON value")

// level is one open object or array.
type level struct {
	closer byte // '}' or ']'
	// cut is the offset just after the last complete member or element
	// (or the opener); truncating there and closing yields valid JSON.
	cut int
	// afterColon is true in an object between a key's ':' and its value.
	afterColon bool
}

// Repair returns s unchanged (compacted) when it is valid JSON. Otherwise it
// treats s as a truncated prefix of a JSON value and completes it: an open
// string value is closed (dropping a half-written escape), an unfinished
// member (a key without a value, a dangling comma, a partial literal) is
// dropped, and open arrays and objects are closed innermost first. Text that
// is not such a prefix, such as trailing garbage after a complete value,
// returns ErrUnrepairable.
//
// The repair recovers structure, not meaning: a string value cut short stays
// short. Callers should treat repaired input as suspect.
func Repair(s string) (json.RawMessage, error) {
	if json.Valid([]byte(s)) {
		return compact(s)
	}
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("%w: empty input", ErrUnrepairable)
	}

	var (
		stack       []level
		inString    bool
		stringIsKey bool
		escapeAt    = -1 // offset of an unfinished escape inside a string
		rootDone    bool
	)
	complete := func(end int) {
		if len(stack) == 0 {
			rootDone = true
			return
		}
		top := &stack[len(stack)-1]
		top.cut = end
		top.afterColon = false
	}

	i := 0
	for i < len(s) {
		c := s[i]
		if inString {
			switch {
			case escapeAt >= 0:
				// A two-byte escape ends here; \uXXXX needs four more.
				if s[escapeAt+1] != 'u' || i == escapeAt+5 {
					escapeAt = -1
				}
			case c == '\\':
				escapeAt = i
			case c == '"':
				inString = false
				if !stringIsKey {
					complete(i + 1)
				}
			}
			i++
			continue
		}
		if rootDone && !isSpace(c) {
			return nil, fmt.Errorf("%w: data after the top-level value", ErrUnrepairable)
		}
		switch {
		case isSpace(c):
		case c == '{' || c == '[':
			closer := byte('}')
			if c == '[' {
				closer = ']'
			}
			stack = append(stack, level{closer: closer, cut: i + 1})
		case c == '}' || c == ']':
			if len(stack) == 0 || stack[len(stack)-1].closer != c {
				return nil, fmt.Errorf("%w: unbalanced %q at offset %d", ErrUnrepairable, c, i)
			}
			stack = stack[:len(stack)-1]
			complete(i + 1)
		case c == '"':
			inString = true
			top := topOf(stack)
			stringIsKey = top != nil && top.closer == '}' && !top.afterColon
		case c == ':':
			if top := topOf(stack); top != nil {
				top.afterColon = true
			}
		case c == ',':
		default:
			// A bare literal or number runs to the next delimiter.
			end := i
			for end < len(s) && !isDelimiter(s[end]) {
				end++
			}
			if end == len(s) {
				// Cut off: keep it only if it is already a whole value.
				if json.Valid([]byte(s[i:end])) {
					complete(end)
				}
				i = end
				continue
			}
			complete(end)
			i = end
			continue
		}
		i++
	}

	out := s
	if inString {
		if escapeAt >= 0 {
			out = out[:escapeAt]
		}
		if !stringIsKey {
			out += `"`
			complete(len(out))
		}
	}
	if len(stack) > 0 {
		out = out[:stack[len(stack)-1].cut]
		var b strings.Builder
		b.WriteString(out)
		for j := len(stack) - 1; j >= 0; j-- {
			b.WriteByte(stack[j].closer)
		}
		out = b.String()
	}
	if !json.Valid([]byte(out)) {
		return nil, fmt.Errorf("%w: still invalid after completion", ErrUnrepairable)
	}
	return compact(out)
}

func topOf(stack []level) *level {
	if len(stack) == 0 {
		return nil
	}
	return &stack[len(stack)-1]
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isDelimiter(c byte) bool {
	return isSpace(c) || c == ',' || c == ':' || c == '{' || c == '}' || c == '[' || c == ']' || c == '"'
}

func compact(s string) (json.RawMessage, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(s)); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnrepairable, err)
	}
	return json.RawMessage(buf.Bytes()), nil
}

// ToolInput interprets the streamed arguments of a model's tool call. Empty
// text is the empty object. A valid JSON object comes back compacted with
// raw "". A truncated object that Repair can complete comes back repaired,
// with raw set to the original text as a marker. Anything else (not an
// object, or beyond repair) returns a nil input and the original text.
func ToolInput(text string) (input json.RawMessage, raw string) {
	if strings.TrimSpace(text) == "" {
		return json.RawMessage(`{}`), ""
	}
	repaired, err := Repair(text) // valid input comes back compacted
	if err != nil || !bytes.HasPrefix(repaired, []byte("{")) {
		return nil, text
	}
	if json.Valid([]byte(text)) {
		return repaired, ""
	}
	return repaired, text
}
