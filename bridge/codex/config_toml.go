package codex

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// isTOMLPath reports whether an explicit hook file is a config.toml
// (decided by its extension) rather than a hooks.json.
func isTOMLPath(path string) bool { return strings.EqualFold(filepath.Ext(path), ".toml") }

// tomlStateKey is the key of Codex's own trust records inside [hooks]
// ([hooks.state."<source>:<event>:<group>:<index>"] trusted_hash = ...):
// not an event, and nothing for cordis to run.
const tomlStateKey = "state"

// parseTOMLFile parses the hooks of a Codex config.toml: its [hooks]
// table, whose keys are events holding arrays of matcher groups
// ([[hooks.PreToolUse]] matcher = ..., [[hooks.PreToolUse.hooks]] type =
// "command", command = ..., timeout = ...), the same tree as a hooks.json's
// "hooks" object. The rest of the file (model settings, MCP servers,
// profiles, ...) is decoded, so that a syntax error anywhere is caught,
// and otherwise ignored. A file that is not valid TOML contributes no
// hooks and is described in problems with its line and column; a file
// without [hooks] declares nothing. Events and groups are validated
// exactly as in a hooks.json: the table is converted to JSON and parsed by
// the same code.
func parseTOMLFile(path string, data []byte) *hookFile {
	f := newHookFile(path, true)
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		return f.failWith(fmt.Sprintf("%s:%s (not a valid config.toml)", path, tomlError(err)))
	}
	raw, ok := doc["hooks"]
	if !ok {
		return f
	}
	tbl, ok := raw.(map[string]any)
	if !ok {
		return f.fail("hooks must be a table of events ([[hooks.<Event>]] ...), not %s", tomlTypeName(raw))
	}
	events := map[string]json.RawMessage{}
	var keys []string
	for k, v := range tbl {
		if k == tomlStateKey {
			continue
		}
		var buf bytes.Buffer
		writeJSON(&buf, v)
		events[k] = buf.Bytes()
		keys = append(keys, k)
	}
	// A decoded table has no order: events go in Codex's order (unknown
	// keys, which make the file fail, last and sorted).
	slices.SortFunc(keys, func(a, b string) int {
		ia, ib := slices.Index(codexEvents, a), slices.Index(codexEvents, b)
		switch {
		case ia >= 0 && ib >= 0:
			return ia - ib
		case ia >= 0:
			return -1
		case ib >= 0:
			return 1
		}
		return strings.Compare(a, b)
	})
	return f.parseEvents(events, keys)
}

// writeJSON writes a decoded TOML value as JSON. TOML values JSON has no
// form for (date-times, infinities and NaN) become objects, which no hook
// field accepts: they are reported as the wrong type where a field is
// expected and ignored elsewhere, like any unknown field.
func writeJSON(buf *bytes.Buffer, v any) {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeJSONString(buf, k)
			buf.WriteByte(':')
			writeJSON(buf, v[k])
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeJSON(buf, e)
		}
		buf.WriteByte(']')
	case string:
		writeJSONString(buf, v)
	case int64:
		buf.WriteString(strconv.FormatInt(v, 10))
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			buf.WriteString(`{"toml":"float"}`)
			return
		}
		buf.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	case bool:
		buf.WriteString(strconv.FormatBool(v))
	default:
		buf.WriteString(`{"toml":"date-time"}`)
	}
}

func writeJSONString(buf *bytes.Buffer, s string) {
	b, _ := json.Marshal(s) // a string always marshals
	buf.Write(b)
}

// tomlError words a decoding error as "line:column: message" (the caller
// puts the file's path in front), without the library's "toml: " prefix.
func tomlError(err error) string {
	msg := strings.TrimPrefix(err.Error(), "toml: ")
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, col := de.Position()
		return fmt.Sprintf("%d:%d: %s", line, col, msg)
	}
	return " " + msg
}

// tomlTypeName names the TOML type of a decoded value, for messages.
func tomlTypeName(v any) string {
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
	}
	return "a date-time" // time.Time and the toml.Local* types
}
