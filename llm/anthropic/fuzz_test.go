package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/llm"
)

// FuzzDecodeStream feeds arbitrary bodies to the stream decoder. Besides
// not panicking, the assembled response must agree with the deltas the
// user saw, and every tool_use block must either carry a JSON object or
// expose its raw input. Seeds live in testdata/fuzz/FuzzDecodeStream.
func FuzzDecodeStream(f *testing.F) {
	f.Add([]byte(textStream("claude-test", "Hello", ", world")))
	f.Fuzz(func(t *testing.T, body []byte) {
		var deltas []llm.Delta
		resp, err := DecodeStream(bytes.NewReader(body), func(d llm.Delta) { deltas = append(deltas, d) })
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
		checkAgainstDeltas(t, resp, deltas, llm.BlockText, llm.DeltaText, func(b llm.Block) string { return b.Text })
		checkAgainstDeltas(t, resp, deltas, llm.BlockThinking, llm.DeltaThinking, func(b llm.Block) string { return b.Thinking })

		announced := 0
		for _, d := range deltas {
			if d.Kind == llm.DeltaToolUse {
				announced++
			}
		}
		tools := 0
		for i, b := range resp.Content {
			if b.Type != llm.BlockToolUse {
				continue
			}
			tools++
			// A call cut off by the output limit is never run; it keeps
			// its raw fragments, which may be none at all.
			cut := resp.StopReason == llm.StopMaxTokens && i == len(resp.Content)-1
			switch {
			case b.Input == nil && b.Text == "" && !cut:
				t.Fatalf("tool_use %q lost its input entirely", b.ID)
			case b.Input != nil && (!json.Valid(b.Input) || !strings.HasPrefix(string(b.Input), "{")):
				t.Fatalf("tool_use %q has non-object input %s", b.ID, b.Input)
			}
		}
		if tools != announced {
			t.Fatalf("%d tool_use blocks but %d announced", tools, announced)
		}
	})
}

// checkAgainstDeltas compares the non-empty blocks of one type, in order,
// with the delta text per block index, in index order.
func checkAgainstDeltas(t *testing.T, resp *llm.Response, deltas []llm.Delta, bt llm.BlockType, dk llm.DeltaKind, text func(llm.Block) string) {
	t.Helper()
	var fromBlocks []string
	for _, b := range resp.Content {
		if b.Type == bt && text(b) != "" {
			fromBlocks = append(fromBlocks, text(b))
		}
	}
	perIndex := map[int]string{}
	var indices []int
	for _, d := range deltas {
		if d.Kind != dk {
			continue
		}
		if _, seen := perIndex[d.Index]; !seen {
			indices = append(indices, d.Index)
		}
		perIndex[d.Index] += d.Text
	}
	slices.Sort(indices)
	var fromDeltas []string
	for _, i := range indices {
		fromDeltas = append(fromDeltas, perIndex[i])
	}
	if !slices.Equal(fromBlocks, fromDeltas) {
		t.Fatalf("%s blocks %q disagree with streamed deltas %q", bt, fromBlocks, fromDeltas)
	}
}
