package loop

import (
	"encoding/json"
	"testing"

	"github.com/cordis-agent/cordis/acp"
)

// A form's shown words are escaped wherever they sit, a field named like
// a keyword included; its values and field names are not.
func TestShownSchema(t *testing.T) {
	in := `{"type":"object","properties":{` +
		`"const":{"type":"string","title":"a\u202eb","description":"x\u001by\nz"},` +
		`"pick":{"type":"string","enum":["v\u202e"],"enumNames":["n\u202e"],"default":"v\u202e"},` +
		`"f\u202e":{"type":"array","items":{"anyOf":[{"const":"c\u202e","title":"t\u200b"}]}}}}`
	var got any
	if err := json.Unmarshal(shownSchema(json.RawMessage(in)), &got); err != nil {
		t.Fatal(err)
	}
	props := got.(map[string]any)["properties"].(map[string]any)
	field := func(name string) map[string]any { return props[name].(map[string]any) }
	if c := field("const"); c["title"] != `a\u202eb` || c["description"] != "x\\x1by\nz" {
		t.Errorf("a field named const: %v", c)
	}
	p := field("pick")
	if p["enum"].([]any)[0] != "v\u202e" || p["default"] != "v\u202e" || p["enumNames"].([]any)[0] != `n\u202e` {
		t.Errorf("enum, default and enumNames: %v", p)
	}
	opt := field("f\u202e")["items"].(map[string]any)["anyOf"].([]any)[0].(map[string]any)
	if opt["const"] != "c\u202e" || opt["title"] != `t\u200b` {
		t.Errorf("an option: %v", opt)
	}

	plain := json.RawMessage(`{"type": "object", "properties": {"b": {"title": "B"}, "a": {"title": "A"}}}`)
	if got := shownSchema(plain); string(got) != string(plain) {
		t.Errorf("a schema with nothing to escape became %s", got)
	}
}

// Escaping a card leaves the caller's content and locations as they were:
// the same values go to the log and into later updates.
func TestShownCardCopies(t *testing.T) {
	content := []acp.ToolCallContent{acp.ContentText("ok"), acp.ContentText("a\u202eb")}
	locs := []acp.ToolCallLocation{{Path: "x\u202e.go"}}
	_, c, l := shownCard("t", content, locs)
	if c[1].Content.Text != `a\u202eb` || l[0].Path != `x\u202e.go` {
		t.Errorf("shown: %q %q", c[1].Content.Text, l[0].Path)
	}
	if content[1].Content.Text != "a\u202eb" || locs[0].Path != "x\u202e.go" {
		t.Error("shownCard changed the caller's slices")
	}
}
