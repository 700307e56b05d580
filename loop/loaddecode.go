package loop

import (
	"bytes"
	"cmp"
	"encoding/json"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/cordis-agent/cordis/sessionlog"
)

// Tool outputs are the bulk of a session log, and session/load reads each
// one once (issue 23): sessionlog has checked that the event is valid
// JSON, decodeToolResult cuts the output's string out of it without
// scanning it again as json.Unmarshal does (it validates the whole value
// before decoding it), and the output's JSON text goes into the replayed
// frame as it is when it is exactly what json.Marshal would write
// (acp.EncodedTextBlock), instead of being escaped again. Anything this
// fast path does not read exactly as json.Unmarshal does is left to
// json.Unmarshal (loaddecode_test.go checks the two agree).

// toolResultFields are the JSON names of a tool/result's fields.
var toolResultFields = jsonFieldNames(reflect.TypeFor[toolResultEvent]())

// decodeToolResult decodes a tool/result event's data (valid JSON, as
// sessionlog returns it) as decodeEvent does, and returns with it the
// output's JSON encoding when the log holds it exactly as json.Marshal
// writes it ("" otherwise).
func decodeToolResult(data []byte) (toolResultLogEvent, string, bool) {
	var t toolResultLogEvent
	var encoded string
	fast := objectMembers(data, func(key, value []byte) bool {
		var err error
		switch string(key) {
		case `"toolCallId"`:
			err = json.Unmarshal(value, &t.ToolCallID)
		case `"status"`:
			err = json.Unmarshal(value, &t.Status)
		case `"isError"`:
			err = json.Unmarshal(value, &t.IsError)
		case `"resultFrom"`:
			err = json.Unmarshal(value, &t.ResultFrom)
		case `"content"`:
			t.Content = nil // json.Unmarshal replaces a slice
			err = json.Unmarshal(value, &t.Content)
		case `"output"`:
			encoded = ""
			if s, enc, ok := unquoteJSONString(value); ok {
				t.Output, encoded = s, enc
			} else {
				err = json.Unmarshal(value, &t.Output) // null leaves it as it was
			}
		default:
			// A key json.Unmarshal may match to a field another way
			// (another case, an escape) is left to it.
			return bytes.IndexByte(key, '\\') < 0 && !matchesFieldFold(key[1:len(key)-1], toolResultFields)
		}
		return err == nil
	})
	if fast {
		return t, encoded, true
	}
	t, ok := decodeEvent[toolResultLogEvent](sessionlog.Event{Data: data})
	return t, "", ok
}

// jsonFieldNames lists the JSON names of struct type t's fields.
func jsonFieldNames(t reflect.Type) []string {
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		names = append(names, cmp.Or(name, f.Name))
	}
	return names
}

// matchesFieldFold reports whether key is one of names in any case, as
// encoding/json matches keys to fields.
func matchesFieldFold(key []byte, names []string) bool {
	for _, n := range names {
		if bytes.EqualFold(key, []byte(n)) {
			return true
		}
	}
	return false
}

// objectMembers calls member with each key (quotes included) and value of
// the JSON object data, which must be valid JSON, in order. It reports
// false when data is not an object or member returned false.
func objectMembers(data []byte, member func(key, value []byte) bool) bool {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return skipSpace(data, i+1) == len(data)
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return false
		}
		keyEnd, ok := skipString(data, i)
		if !ok {
			return false
		}
		key := data[i:keyEnd]
		i = skipSpace(data, keyEnd)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		i = skipSpace(data, i+1)
		valueEnd, ok := skipValue(data, i)
		if !ok || !member(key, data[i:valueEnd]) {
			return false
		}
		i = skipSpace(data, valueEnd)
		if i >= len(data) {
			return false
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return skipSpace(data, i+1) == len(data)
		default:
			return false
		}
	}
}

// skipValue returns the end of the JSON value starting at b[i].
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, ok := skipString(b, j)
				if !ok {
					return 0, false
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	}
	j := i
	for j < len(b) && !isSpaceByte(b[j]) && b[j] != ',' && b[j] != '}' && b[j] != ']' {
		j++
	}
	return j, j > i
}

// skipString returns the end of the JSON string starting at b[i] (just
// past its closing quote): the first quote not escaped by an odd run of
// backslashes, found with bytes.IndexByte rather than byte by byte.
func skipString(b []byte, i int) (int, bool) {
	for j := i + 1; ; j++ {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, false
		}
		j += k
		backslashes := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return j + 1, true
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpaceByte(b[i]) {
		i++
	}
	return i
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// unquoteJSONString decodes raw, a JSON string (part of valid JSON), as
// json.Unmarshal does, and returns raw itself as the string's encoding
// when it is byte for byte what json.Marshal writes for the result ("" if
// not). It leaves to json.Unmarshal (ok false) what it does not decode
// exactly: anything but a string, invalid UTF-8 and escaped surrogates,
// which encoding/json replaces or pairs.
func unquoteJSONString(raw []byte) (s, encoded string, ok bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", "", false
	}
	body := raw[1 : len(raw)-1]
	if !utf8.Valid(body) {
		return "", "", false
	}
	// json.Marshal escapes <, > and & (HTML-safe) and U+2028, U+2029.
	canonical := bytes.IndexByte(body, '<') < 0 && bytes.IndexByte(body, '>') < 0 && bytes.IndexByte(body, '&') < 0 &&
		!bytes.Contains(body, []byte("\u2028")) && !bytes.Contains(body, []byte("\u2029"))
	esc := bytes.IndexByte(body, '\\')
	if esc < 0 {
		return string(body), encodedIf(canonical, raw), true
	}
	var out strings.Builder
	out.Grow(len(body))
	for esc >= 0 {
		out.Write(body[:esc])
		body = body[esc:]
		if len(body) < 2 {
			return "", "", false
		}
		n := 2
		switch c := body[1]; c {
		case '"', '\\':
			out.WriteByte(c)
		case '/':
			out.WriteByte('/')
			canonical = false // json.Marshal writes '/' as it is
		case 'b':
			out.WriteByte('\b')
		case 'f':
			out.WriteByte('\f')
		case 'n':
			out.WriteByte('\n')
		case 'r':
			out.WriteByte('\r')
		case 't':
			out.WriteByte('\t')
		case 'u':
			r, valid := hexRune(body)
			if !valid || r >= 0xd800 && r < 0xe000 {
				return "", "", false
			}
			canonical = canonical && string(body[:6]) == marshalEscape(r)
			out.WriteRune(r)
			n = 6
		default:
			return "", "", false
		}
		body = body[n:]
		esc = bytes.IndexByte(body, '\\')
	}
	out.Write(body)
	return out.String(), encodedIf(canonical, raw), true
}

func encodedIf(canonical bool, raw []byte) string {
	if !canonical {
		return ""
	}
	return string(raw)
}

// hexRune reads the rune of the \uXXXX escape b starts with.
func hexRune(b []byte) (rune, bool) {
	if len(b) < 6 {
		return 0, false
	}
	var r rune
	for _, c := range b[2:6] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// marshalEscape is the \u escape json.Marshal writes for r, or "" when
// it writes r otherwise (as it is, or with a short escape like \n).
func marshalEscape(r rune) string {
	const hex = "0123456789abcdef"
	switch {
	case r == '\b' || r == '\f' || r == '\n' || r == '\r' || r == '\t':
		return ""
	case r < 0x20 || r == '<' || r == '>' || r == '&':
		return `\u00` + string(hex[r>>4]) + string(hex[r&0xf])
	case r == '\u2028' || r == '\u2029':
		return `\u202` + string(hex[r&0xf])
	}
	return ""
}
