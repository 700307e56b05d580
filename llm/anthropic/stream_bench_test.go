package anthropic

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/cordis-agent/cordis/llm"
)

// BenchmarkDecodeStream decodes one streamed answer of n text deltas of
// 16 bytes per op; the cost per delta (ns/delta) must not grow with n.
func BenchmarkDecodeStream(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("deltas=%d", n), func(b *testing.B) {
			var body bytes.Buffer
			body.WriteString("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_b\",\"model\":\"claude-test\",\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n")
			body.WriteString("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
			for i := range n {
				fmt.Fprintf(&body, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"d%06d lorem   \"}}\n\n", i)
			}
			body.WriteString("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n")
			body.WriteString("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":9}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
			b.ReportAllocs()
			for b.Loop() {
				resp, err := DecodeStream(bytes.NewReader(body.Bytes()), func(llm.Delta) {})
				if err != nil || len(resp.Content[0].Text) != 16*n {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/delta")
		})
	}
}
