package openai

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/cordis-agent/cordis/llm"
)

// BenchmarkDecodeStream decodes one streamed answer of n content deltas of
// 16 bytes per op; the cost per delta (ns/delta) must not grow with n.
func BenchmarkDecodeStream(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("deltas=%d", n), func(b *testing.B) {
			var body bytes.Buffer
			for i := range n {
				fmt.Fprintf(&body, "data: {\"id\":\"c1\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"d%06d lorem   \"}}]}\n\n", i)
			}
			body.WriteString("data: {\"id\":\"c1\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
			b.ReportAllocs()
			for b.Loop() {
				resp, err := decodeStream(bytes.NewReader(body.Bytes()), func(llm.Delta) {})
				if err != nil || len(resp.Content[0].Text) != 16*n {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/delta")
		})
	}
}
