package loop

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// A tool call's input reaches the editor (the tool_call's rawInput, the
// permission request) and the log's tool/call event, which session/load
// replays as that rawInput. The model's message keeps the whole input
// (the history and the log's context/message hold it); these copies are
// for showing, so a large input is cut there: a Write of 16 MiB would
// otherwise put 16 MiB in a frame and in another log line, and several
// more transient copies in memory to encode them.
const (
	// shownInputMax is the size up to which an input is shown whole.
	shownInputMax = 64 << 10
	// shownStringMax is how much of each long string value is kept when
	// an input is larger than shownInputMax (then 1 KiB, if many long
	// strings still make it too large).
	shownStringMax = 16 << 10
)

// shownInput is input as the editor and the tool/call event get it:
// itself when at most shownInputMax bytes, otherwise with each string
// value longer than the limit cut at a character boundary and ended with
// a note of its whole size. An input that is still too large (many
// values), or is not valid JSON, is replaced by an object that says so.
func shownInput(input json.RawMessage) json.RawMessage {
	if len(input) <= shownInputMax {
		return input
	}
	for _, keep := range []int{shownStringMax, 1 << 10} {
		if out, ok := cutLongStrings(input, keep); ok && len(out) <= shownInputMax {
			return out
		}
	}
	note, _ := json.Marshal(map[string]string{"cordis": fmt.Sprintf("an input of %d bytes, not shown", len(input))})
	return note
}

// cutLongStrings copies the JSON text in, cutting every string value
// (not object key) whose encoded body is longer than keep bytes. ok is
// false when in is not well-formed enough to scan (an unterminated
// string).
func cutLongStrings(in []byte, keep int) (out []byte, ok bool) {
	out = make([]byte, 0, shownInputMax)
	for i := 0; i < len(in); {
		if len(out) > shownInputMax {
			return out, true // too large whatever follows
		}
		if in[i] != '"' {
			out = append(out, in[i])
			i++
			continue
		}
		end, ok := stringEnd(in, i+1)
		if !ok {
			return nil, false
		}
		body := in[i+1 : end] // the encoded body, between the quotes
		if len(body) <= keep || isKey(in, end+1) {
			out = append(out, in[i:end+1]...)
		} else {
			cut := safeCut(body, keep)
			out = append(out, '"')
			out = append(out, body[:cut]...)
			out = fmt.Appendf(out, "… [cut by cordis: %d bytes of JSON in all]\"", len(body))
		}
		i = end + 1
	}
	return out, true
}

// stringEnd is the index of the quote that ends the JSON string whose
// body starts at from.
func stringEnd(in []byte, from int) (int, bool) {
	for j := from; j < len(in); j++ {
		switch in[j] {
		case '\\':
			j++ // the escaped byte; \uXXXX's hex digits need no care
		case '"':
			return j, true
		}
	}
	return 0, false
}

// isKey reports whether the string that ended just before at is an
// object key: a colon follows it.
func isKey(in []byte, at int) bool {
	for ; at < len(in); at++ {
		switch in[at] {
		case ' ', '\t', '\n', '\r':
			continue
		case ':':
			return true
		}
		return false
	}
	return false
}

// safeCut is the largest n <= max at which body (an encoded JSON string
// body) may be cut and stay valid: not inside an escape sequence and not
// inside a UTF-8 character.
func safeCut(body []byte, max int) int {
	n, j := 0, 0
	for j < len(body) && j <= max {
		n = j
		switch {
		case body[j] == '\\' && j+1 < len(body) && body[j+1] == 'u':
			j += 6
		case body[j] == '\\':
			j += 2
		case body[j] < utf8.RuneSelf:
			j++
		default:
			_, size := utf8.DecodeRune(body[j:])
			j += size
		}
	}
	if j <= max && j <= len(body) {
		n = j
	}
	return n
}
