// Package httpstream opens one streaming HTTP response for a model
// provider: it sends the request, turns a non-200 answer into an
// *llm.Error, waits for the first byte of a 200 body (so a connection that
// dies before anything streamed stays retryable), and watches the body for
// stalls with an idle timer. Debug logs redact credentials.
//
// Concurrency: a Client is immutable after construction and safe for
// concurrent use; a Stream belongs to the goroutine that reads it.
package httpstream
