package loop

import (
	"encoding/json"
	"strings"
	"testing"
)

// A large input is shown cut, as valid JSON whatever falls at the cut (an
// escape, a multi-byte character), with its keys and small values whole;
// a small one is shown as it is.
func TestShownInput(t *testing.T) {
	small := json.RawMessage(`{"file_path":"/p/a.txt","content":"hi\n"}`)
	if got := shownInput(small); string(got) != string(small) {
		t.Errorf("a small input was changed: %s", got)
	}
	for _, unit := range []string{"line\n", `a"b\`, "é", "😀", "\u2028", "x"} {
		for pad := range 7 {
			content := strings.Repeat("y", pad) + strings.Repeat(unit, (1<<20)/len(unit))
			in, _ := json.Marshal(map[string]any{"file_path": "/p/a.txt", "content": content, "old": strings.Repeat("z", 100)})
			got := shownInput(in)
			var v map[string]string
			if err := json.Unmarshal(got, &v); err != nil {
				t.Fatalf("unit %q pad %d: not valid JSON (%v): %.200s", unit, pad, err, got)
			}
			if len(got) > shownInputMax || v["file_path"] != "/p/a.txt" || v["old"] != strings.Repeat("z", 100) ||
				!strings.HasPrefix(content, strings.TrimRight(strings.SplitN(v["content"], "…", 2)[0], "\ufffd")) ||
				!strings.Contains(v["content"], "cut by cordis") {
				t.Fatalf("unit %q pad %d: %d bytes: %.300s", unit, pad, len(got), got)
			}
		}
	}
	// Many long values: each is cut shorter. Too many values, or values
	// that are not strings: a note.
	many := map[string]any{}
	for i := range 20 {
		many[strings.Repeat("k", i+1)] = strings.Repeat("v", 20<<10)
	}
	in, _ := json.Marshal(many)
	if got := shownInput(in); len(got) > shownInputMax || !json.Valid(got) || strings.Count(string(got), "cut by cordis") != 20 {
		t.Errorf("20 long values: %d bytes, valid %v", len(got), json.Valid(got))
	}
	numbers, _ := json.Marshal(map[string]any{"n": make([]int, 100000)})
	if got := shownInput(numbers); !json.Valid(got) || !strings.Contains(string(got), "not shown") {
		t.Errorf("a large input of numbers: %.200s", got)
	}
	if got := shownInput(json.RawMessage(`{"a":"` + strings.Repeat("x", 1<<17))); !json.Valid(got) {
		t.Errorf("an unterminated string: %.200s", got)
	}
}
