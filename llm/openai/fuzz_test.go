package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/llm"
)

// FuzzDecodeStream feeds arbitrary bodies to the chunk decoder. The
// response must agree with the streamed deltas, and tool_use blocks must
// carry a JSON object or their raw arguments. Seeds live in
// testdata/fuzz/FuzzDecodeStream, and are also every authored stream of
// the wire suite (wire/streams/openai: tool calls without an index,
// reasoning in its several fields, error chunks, ...).
func FuzzDecodeStream(f *testing.F) {
	f.Add([]byte(chunkEvent(`{"content":"hi"}`, "stop") + done))
	streams, err := filepath.Glob(filepath.Join("..", "..", "wire", "streams", "openai", "*.sse"))
	if err != nil || len(streams) == 0 {
		f.Fatalf("no wire streams to seed from: %v", err)
	}
	for _, p := range streams {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var deltas []llm.Delta
		resp, err := decodeStream(bytes.NewReader(body), func(d llm.Delta) { deltas = append(deltas, d) })
		if err != nil {
			var apiErr *llm.Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("error %v is not an *llm.Error", err)
			}
		} else if resp == nil {
			t.Fatal("nil response without an error")
		}
		if resp == nil {
			if len(deltas) != 0 {
				t.Fatalf("deltas %v streamed but no partial response", deltas)
			}
			return
		}
		streamed := make([]string, len(resp.Content))
		for _, d := range deltas {
			if d.Index < 0 || d.Index >= len(resp.Content) {
				t.Fatalf("delta index %d outside %d blocks", d.Index, len(resp.Content))
			}
			streamed[d.Index] += d.Text
		}
		for i, b := range resp.Content {
			switch b.Type {
			case llm.BlockText:
				if b.Text != streamed[i] {
					t.Fatalf("text block %d = %q, streamed %q", i, b.Text, streamed[i])
				}
			case llm.BlockThinking:
				if b.Thinking != streamed[i] {
					t.Fatalf("thinking block %d = %q, streamed %q", i, b.Thinking, streamed[i])
				}
			case llm.BlockToolUse:
				if b.ID == "" {
					t.Fatalf("tool_use block %d has no id", i)
				}
				if b.Input == nil && b.Text == "" {
					t.Fatalf("tool_use block %d lost its arguments", i)
				}
				if b.Input != nil && (!json.Valid(b.Input) || !strings.HasPrefix(string(b.Input), "{")) {
					t.Fatalf("tool_use block %d has non-object input %s", i, b.Input)
				}
			default:
				t.Fatalf("unexpected block type %q", b.Type)
			}
		}
	})
}
