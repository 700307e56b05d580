// Package acp is cordis's side of the Agent Client Protocol v1: the wire
// types, a Server that serves an Agent over newline-delimited JSON-RPC on
// stdio, and a typed Client for the agent's calls to the editor.
//
// The Server keeps sourcegraph/jsonrpc2 behind this package and fixes its
// two sharp edges: a malformed line is answered (-32700 / -32600) instead of
// closing the connection, and requests are handled in wire order on the
// read goroutine, except session/prompt, which is registered synchronously
// (so a session/cancel that follows it always finds it) and then runs on
// its own goroutine (so its reverse calls cannot deadlock the read loop).
// The first line, when it is an initialize request, is answered before
// the connection and its goroutines start, with the same bytes the
// connection would write: that is most of an editor's wait at start-up.
//
// Concurrency: Agent methods other than Prompt are called one at a time, in
// wire order; Prompt calls run concurrently with them and with each other
// (for different sessions). A Client is safe for concurrent use.
package acp
