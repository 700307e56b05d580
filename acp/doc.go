// Package acp is cordis's side of the Agent Client Protocol v1: the wire
// types, a Server that serves an Agent over newline-delimited JSON-RPC on
// stdio, and a typed Client for the agent's calls to the editor. The
// method names and three enums (StopReason, ToolKind, ToolCallStatus) are
// generated from the vendored schema (schema/, schema_gen.go); the other
// types are kept by hand.
//
// The Server keeps sourcegraph/jsonrpc2 behind this package and fixes its
// sharp edges: a malformed or oversized line is answered (-32700 / -32600)
// instead of closing the connection (lineStream), and requests follow one
// ordering design, as in gopls's jsonrpc2_v2 (queue.go): the read goroutine
// only takes messages in and never waits for a handler, acting at once on
// session/cancel and $/cancel_request (the preempt path) and registering
// each session/prompt's turn as it is read, so a cancel that follows a
// prompt on the wire always finds it; one request goroutine then handles
// the requests in wire order, starting each prompt's turn on its own
// goroutine. Requests read before the input ends are still answered.
//
// Concurrency: Agent methods other than Prompt are called one at a time,
// in wire order, on the request goroutine; Prompt calls run concurrently
// with them and with each other. Because the read goroutine is never
// held, any method may call the client and wait for its answer without
// deadlock. session/cancel cancels every turn of the session read before
// it, queued or running. A Client is safe for concurrent use.
package acp
