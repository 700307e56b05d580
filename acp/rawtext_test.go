package acp

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestToolCallUpdateByHand: the hand-written tool_call_update is the
// bytes json.Marshal writes for every shape of update, with and without
// pre-encoded text, so a replayed frame is the frame the live turn sent.
func TestToolCallUpdateByHand(t *testing.T) {
	texts := []string{"", "plain", "a \"quoted\" <b>tag</b> & co\n\tindent", "line sep \u2028 para \u2029 ctl \x01\x1f del \x7f",
		"invalid \xff utf-8 \xe2\x80", "emoji 🎉 and ünïcode", strings.Repeat("long line of output\n", 500)}
	old := "before"
	updates := []ToolCallUpdate{
		{ToolCallID: "toolu_1"},
		{ToolCallID: "toolu_\"2\"", Title: "Read <x>", Kind: ToolKindRead, Status: ToolStatusCompleted},
		{ToolCallID: "t", Status: ToolStatusFailed, Content: []ToolCallContent{ContentText("failed: boom")}},
		{ToolCallID: "t", Content: []ToolCallContent{DiffContent("/p/a.go", &old, "after"), DiffContent("/p/new.go", nil, ""), TerminalContent("term-1")}},
		{ToolCallID: "t", Locations: []ToolCallLocation{{Path: "/p/a.go"}}, RawInput: json.RawMessage(` {"file_path": "/p/<a>.go"} `),
			RawOutput: json.RawMessage(`[1, 2]`), Meta: Meta{"cordis": map[string]any{"x": 1}}},
		{ToolCallID: "t", Content: []ToolCallContent{{Type: "content", Content: &ContentBlock{Type: "image", Data: "AAAA", MimeType: "image/png"}}}},
		{ToolCallID: "t", Content: []ToolCallContent{{Type: "content", Content: &ContentBlock{Type: "text", Text: "note", Annotations: &Annotations{Audience: []string{"user"}}}}}},
	}
	for _, text := range texts {
		enc, _ := json.Marshal(text)
		updates = append(updates,
			ToolCallUpdate{ToolCallID: "t", Status: ToolStatusCompleted, Content: []ToolCallContent{ContentText(text)}},
			ToolCallUpdate{ToolCallID: "t", Status: ToolStatusCompleted, Content: []ToolCallContent{contentOf(EncodedTextBlock(text, string(enc))), ContentText(text)}})
	}
	for i, u := range updates {
		want, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendToolCallUpdate(nil, u)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("update %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

// TestEncodedTextBlockFollowsText: a block whose text was changed after
// it was built is encoded again, not written with the stale encoding.
func TestEncodedTextBlockFollowsText(t *testing.T) {
	b := EncodedTextBlock("old output", `"old output"`)
	b.Text = "new output"
	got, err := appendToolCallUpdate(nil, ToolCallUpdate{ToolCallID: "t", Content: []ToolCallContent{contentOf(b)}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"toolCallId":"t","content":[{"type":"content","content":{"type":"text","text":"new output"}}]}`; string(got) != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

// TestSessionNotificationToolCallUpdate: the session/update frame of a
// tool_call_update is what it was when json.Marshal wrote the update.
func TestSessionNotificationToolCallUpdate(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 23))
	for i := range 200 {
		var sb strings.Builder
		for range r.IntN(64) {
			sb.WriteRune([]rune("ab\"\\\n\t<>&\u2028é🎉\x00\x7f")[r.IntN(14)])
		}
		text := sb.String()
		enc, _ := json.Marshal(text)
		u := ToolCallUpdate{ToolCallID: fmt.Sprint("toolu_", i), Status: ToolStatusCompleted, Content: []ToolCallContent{contentOf(EncodedTextBlock(text, string(enc)))}}
		got, err := SessionNotification{SessionID: "sess_1", Update: u}.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		body, _ := json.Marshal(u)
		want := `{"sessionId":"sess_1","update":{"sessionUpdate":"tool_call_update",` + string(body[1:]) + `}`
		if string(got) != want {
			t.Fatalf("text %q:\n got %s\nwant %s", text, got, want)
		}
	}
}

func contentOf(b ContentBlock) ToolCallContent { return ToolCallContent{Type: "content", Content: &b} }

// TestHandEncodedTypesAreKnown: appendToolCallUpdate and the appendJSON
// methods name every field of the types they write. A field added to one
// of them must be added there too, or frames would silently lose it; this
// list fails first.
func TestHandEncodedTypesAreKnown(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{ToolCallUpdate{}, "ToolCallID Title Kind Status Content Locations RawInput RawOutput Meta"},
		{ToolCallContent{}, "Type Content Path OldText NewText TerminalID"},
		{ContentBlock{}, "Type Text Data MimeType URI Name Title Description Size Resource Annotations encoded"},
	} {
		typ := reflect.TypeOf(c.v)
		var names []string
		for i := range typ.NumField() {
			names = append(names, typ.Field(i).Name)
		}
		if got := strings.Join(names, " "); got != c.want {
			t.Errorf("%s fields = %s\nwant %s (update rawtext.go's hand encoding, then this list)", typ.Name(), got, c.want)
		}
	}
}

// TestContentBlockEqualIgnoresTheEncoding: a block built with its encoding
// equals the same block decoded from JSON.
func TestContentBlockEqualIgnoresTheEncoding(t *testing.T) {
	a := EncodedTextBlock("out", `"out"`)
	if !a.Equal(TextBlock("out")) {
		t.Error("an EncodedTextBlock differs from TextBlock of the same text")
	}
	if a.Equal(TextBlock("other")) {
		t.Error("blocks of different texts are equal")
	}
}
