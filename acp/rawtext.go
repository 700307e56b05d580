package acp

import (
	"encoding/json"
	"reflect"
)

// Replaying a session log sends every tool output of the session again
// (session/load). The log already holds each output as a JSON string, so
// a text block may carry that encoding (EncodedTextBlock) and a
// tool_call_update is written by hand (appendToolCallUpdate): the output
// is copied into the frame instead of being escaped again and then
// re-scanned once per json.Marshaler around it. The frames are the bytes
// json.Marshal writes for the same values (rawtext_test.go).

// encodedText is a text and its JSON encoding, exactly as json.Marshal
// writes the text (quotes included, HTML characters escaped).
type encodedText struct {
	text string
	json string
}

// EncodedTextBlock is TextBlock(text) that marshals as encoded, which
// must be the bytes json.Marshal(text) returns. It holds the encoding
// only while Text is text: a block whose Text is changed is encoded
// again.
func EncodedTextBlock(text, encoded string) ContentBlock {
	b := TextBlock(text)
	b.encoded = &encodedText{text: text, json: encoded}
	return b
}

// Equal reports whether b and o are the same block; the encoding an
// EncodedTextBlock carries is a cache and does not count (go-cmp uses
// this method, so tests compare blocks however they were built).
func (b ContentBlock) Equal(o ContentBlock) bool {
	b.encoded, o.encoded = nil, nil
	return reflect.DeepEqual(b, o)
}

// appendJSON appends b as json.Marshal(b) writes it.
func (b ContentBlock) appendJSON(dst []byte) ([]byte, error) {
	plainText := b.Type == "text" && b.Data == "" && b.MimeType == "" && b.URI == "" && b.Name == "" &&
		b.Title == "" && b.Description == "" && b.Size == nil && b.Resource == nil && b.Annotations == nil
	if !plainText {
		return appendMarshal(dst, b)
	}
	dst = append(dst, `{"type":"text","text":`...)
	// Comparing the strings is cheap when Text is still the text encoded:
	// equal pointers and lengths end the comparison at once.
	if e := b.encoded; e != nil && e.text == b.Text {
		dst = append(dst, e.json...)
	} else {
		var err error
		if dst, err = appendMarshal(dst, b.Text); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

// appendJSON appends c as json.Marshal(c) writes it.
func (c ToolCallContent) appendJSON(dst []byte) ([]byte, error) {
	if c.Type != "content" || c.Content == nil || c.Path != "" || c.OldText != nil || c.NewText != nil || c.TerminalID != "" {
		return appendMarshal(dst, c)
	}
	dst = append(dst, `{"type":"content","content":`...)
	dst, err := c.Content.appendJSON(dst)
	if err != nil {
		return nil, err
	}
	return append(dst, '}'), nil
}

// appendToolCallUpdate appends u as json.Marshal(u) writes it.
func appendToolCallUpdate(dst []byte, u ToolCallUpdate) ([]byte, error) {
	var err error
	field := func(name string, v any) {
		if err == nil {
			dst = append(dst, name...)
			dst, err = appendMarshal(dst, v)
		}
	}
	dst = append(dst, '{')
	field(`"toolCallId":`, u.ToolCallID)
	if u.Title != "" {
		field(`,"title":`, u.Title)
	}
	if u.Kind != "" {
		field(`,"kind":`, u.Kind)
	}
	if u.Status != "" {
		field(`,"status":`, u.Status)
	}
	if len(u.Content) > 0 && err == nil {
		dst = append(dst, `,"content":[`...)
		for i, c := range u.Content {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = c.appendJSON(dst); err != nil {
				return nil, err
			}
		}
		dst = append(dst, ']')
	}
	if len(u.Locations) > 0 {
		field(`,"locations":`, u.Locations)
	}
	if len(u.RawInput) > 0 {
		field(`,"rawInput":`, u.RawInput)
	}
	if len(u.RawOutput) > 0 {
		field(`,"rawOutput":`, u.RawOutput)
	}
	if len(u.Meta) > 0 {
		field(`,"_meta":`, u.Meta)
	}
	if err != nil {
		return nil, err
	}
	return append(dst, '}'), nil
}

// appendMarshal appends json.Marshal(v).
func appendMarshal(dst []byte, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(dst, b...), nil
}
