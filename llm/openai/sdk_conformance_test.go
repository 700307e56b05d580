package openai

import (
	"errors"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/llm"
)

// TestNamedErrorEvent: a failure sent as "event: error" is read as the
// official SDK reads it, whatever the data's shape (wire/accumulate.mjs
// found cordis decoding it as an ordinary chunk and then reporting a
// stream that ended early, the server's message lost).
func TestNamedErrorEvent(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		kind       llm.ErrorKind
		message    string
	}{
		{"bare object", `{"message":"model overloaded","type":"overloaded_error","code":"overloaded"}`, llm.ErrOverloaded, "model overloaded"},
		{"wrapped", `{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}`, llm.ErrRateLimit, "slow down"},
		{"plain text", `Internal Server Error`, llm.ErrServer, "Internal Server Error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stream := chunkEvent(`{"role":"assistant","content":"Wo"}`, "") + "event: error\n" + data(tc.data)
			resp, err := decodeStream(strings.NewReader(stream), nil)
			var e *llm.Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want an *llm.Error", err)
			}
			if e.Kind != tc.kind || e.StatusCode != 200 || e.Message != tc.message {
				t.Errorf("got kind %s status %d message %q, want %s 200 %q", e.Kind, e.StatusCode, e.Message, tc.kind, tc.message)
			}
			if resp == nil || len(resp.Content) != 1 || resp.Content[0].Text != "Wo" {
				t.Errorf("partial response = %+v, want the text that arrived", resp)
			}
		})
	}
}
