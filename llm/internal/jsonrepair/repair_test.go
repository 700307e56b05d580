package jsonrepair

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestRepair(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" means ErrUnrepairable
	}{
		{in: `{"a": 1}`, want: `{"a":1}`},
		{in: `{"path": "/tmp/x", "content": "hello wor`, want: `{"path":"/tmp/x","content":"hello wor"}`},
		{in: `{"a": [1, 2, {"b": "c`, want: `{"a":[1,2,{"b":"c"}]}`},
		{in: `{"a": 1,`, want: `{"a":1}`},
		{in: `{"a": 1, "b`, want: `{"a":1}`},
		{in: `{"a": 1, "b"`, want: `{"a":1}`},
		{in: `{"a": 1, "b":`, want: `{"a":1}`},
		{in: `{"a": 1, "b": tr`, want: `{"a":1}`},
		{in: `{"a": 1, "b": true`, want: `{"a":1,"b":true}`},
		{in: `{"n": 12`, want: `{"n":12}`},
		{in: `{"n": -`, want: `{}`},
		{in: `{"s": "x\`, want: `{"s":"x"}`},
		{in: `{"s": "x\u00`, want: `{"s":"x"}`},
		{in: `{"s": "x\u00e9`, want: `{"s":"x\u00e9"}`},
		{in: `{"s": "say \"hi`, want: `{"s":"say \"hi"}`},
		{in: `{"s": "a}b]`, want: `{"s":"a}b]"}`},
		{in: `{`, want: `{}`},
		{in: `[`, want: `[]`},
		{in: `[[1], [2`, want: `[[1],[2]]`},
		{in: `{"a": {"b": {`, want: `{"a":{"b":{}}}`},
		{in: `"abc`, want: `"abc"`},
		{in: ``},
		{in: `   `},
		{in: `{"a": 1}}`},
		{in: `{"a": 1} x`},
		{in: `{"a": 1]`},
		{in: `{abc}`},
		{in: `nul`},
	}
	for _, tt := range tests {
		got, err := Repair(tt.in)
		if tt.want == "" {
			if !errors.Is(err, ErrUnrepairable) {
				t.Errorf("Repair(%q) = %s, %v; want ErrUnrepairable", tt.in, got, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Repair(%q) error: %v", tt.in, err)
			continue
		}
		if string(got) != tt.want {
			t.Errorf("Repair(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// FuzzRepair checks that every prefix of a valid document is repaired into
// valid JSON, and that Repair never returns invalid JSON without an error.
func FuzzRepair(f *testing.F) {
	f.Add(`{"command": "ls -la", "timeout": 120, "flags": [true, false, null], "env": {"A": "b\"c\u00e9"}}`)
	f.Add(`[1, -2.5e3, "x", {"k": []}]`)
	f.Fuzz(func(t *testing.T, doc string) {
		out, err := Repair(doc)
		if err == nil && !json.Valid(out) {
			t.Fatalf("Repair(%q) returned invalid JSON %s", doc, out)
		}
		if !json.Valid([]byte(doc)) {
			return
		}
		for i := 1; i <= len(doc); i++ {
			prefix := doc[:i]
			if strings.TrimSpace(prefix) == "" {
				continue
			}
			out, err := Repair(prefix)
			if err != nil {
				// Only a bare scalar cut mid-token may be hopeless.
				var v any
				if json.Unmarshal([]byte(doc), &v) == nil {
					switch v.(type) {
					case map[string]any, []any, string:
						t.Fatalf("Repair(%q) (prefix of %q): %v", prefix, doc, err)
					}
				}
				continue
			}
			if !json.Valid(out) {
				t.Fatalf("Repair(%q) = %s, invalid", prefix, out)
			}
		}
	})
}

func TestToolInput(t *testing.T) {
	tests := []struct {
		text      string
		wantInput string // "" means nil
		wantRaw   string
	}{
		{text: "", wantInput: `{}`},
		{text: "  ", wantInput: `{}`},
		{text: `{"a": 1}`, wantInput: `{"a":1}`},
		{text: `{"a": "b`, wantInput: `{"a":"b"}`, wantRaw: `{"a": "b`},
		{text: `[1, 2]`, wantRaw: `[1, 2]`},
		{text: `"str"`, wantRaw: `"str"`},
		{text: `{"a": 1}}`, wantRaw: `{"a": 1}}`},
	}
	for _, tt := range tests {
		input, raw := ToolInput(tt.text)
		if string(input) != tt.wantInput || (tt.wantInput == "" && input != nil) || raw != tt.wantRaw {
			t.Errorf("ToolInput(%q) = %s, %q; want %s, %q", tt.text, input, raw, tt.wantInput, tt.wantRaw)
		}
	}
}
