// Command relay is the transport floor of the streaming benchmark: the
// least a Go program can do to turn a model's SSE text deltas into ACP
// session/update frames. It reads one line from stdin (the prompt), POSTs
// to the URL given as its argument, decodes each SSE data line, writes one
// agent_message_chunk notification per text delta to stdout, and answers
// the prompt line when the stream ends. See BENCHMARKS.md.
//
// Concurrency: one goroutine reads the SSE stream and writes frames in order.
package main
