package anthropic

import (
	"errors"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/llm"
)

// The cases below are where wire/accumulate.mjs found cordis reading a
// stream differently from the official SDK's MessageStream accumulator.

// TestSignatureDeltaReplaces: each signature_delta carries the whole
// signature, so the last one stands; appending them made a signature the
// API never issued (and rejects when it is sent back).
func TestSignatureDeltaReplaces(t *testing.T) {
	stream := event("message_start", `{"type":"message_start","message":{"id":"msg_1","model":"m","usage":{"input_tokens":1,"output_tokens":1}}}`) +
		event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`) +
		event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hm"}}`) +
		event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"first"}}`) +
		event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"second"}}`) +
		event("content_block_stop", `{"type":"content_block_stop","index":0}`) +
		event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}`) +
		event("message_stop", `{"type":"message_stop"}`)
	resp, err := DecodeStream(strings.NewReader(stream), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Content[0].Signature; got != "second" {
		t.Errorf("signature = %q, want the last signature_delta's %q", got, "second")
	}
}

// TestPlainTextErrorEvent: an error event whose data is not JSON (a proxy's
// text) is the server failing the step, as the SDK reads it, with the text
// as the message; it was reported as a malformed stream.
func TestPlainTextErrorEvent(t *testing.T) {
	stream := event("message_start", `{"type":"message_start","message":{"id":"msg_1","model":"m","usage":{"input_tokens":1,"output_tokens":1}}}`) +
		event("error", `upstream connect error or disconnect/reset before headers`)
	_, err := DecodeStream(strings.NewReader(stream), nil)
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want an *llm.Error", err)
	}
	if e.Kind != llm.ErrServer || e.StatusCode != 200 {
		t.Errorf("kind %s status %d, want %s 200", e.Kind, e.StatusCode, llm.ErrServer)
	}
	if e.Message != "upstream connect error or disconnect/reset before headers" {
		t.Errorf("message = %q, want the event's text", e.Message)
	}
}
