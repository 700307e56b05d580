// Package sse reads Server-Sent Events streams as served by model APIs
// (Anthropic Messages, OpenAI Chat Completions).
//
// It implements the framing of the WHATWG event-stream format: "event:" and
// "data:" fields, several data lines joined with "\n", ":" comment lines,
// LF, CRLF or CR line endings, and a blank line that ends an event. Lines may
// be up to MaxLineSize bytes long, because a single data line can carry a
// large JSON payload.
//
//	r := sse.NewReader(resp.Body)
//	for {
//		ev, err := r.Next()
//		if err == io.EOF {
//			break
//		}
//		...
//	}
//
// Concurrency: a Reader is not safe for concurrent use; one goroutine reads
// one stream.
package sse
