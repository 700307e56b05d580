// Package acptest is the scripted ACP editor, in the style of
// net/http/httptest, and the only one in the repository: Start serves an
// acp.Agent in-process over pipes and StartProcess drives a real
// `cordis acp` binary over its stdio, both failing the test on any stdout
// line that is not a JSON-RPC message; Connect drives any agent whose
// stdio the caller owns and reports problems instead of failing a test, so
// the snapshot harness (package snapshots) and its replay tool use it
// outside go test too.
//
// What an editor does is assembled from parts:
//
//   - Frames records every line the agent wrote; Options.Tap sees every
//     frame in both directions exactly as written on the wire, in order,
//     the agent's before they are dispatched.
//   - The agent's requests go to the On* handlers (OnPermission,
//     OnElicitation, OnRequest), each on its own goroutine, or to
//     Options.Serve on the read goroutine in arrival order; a Request is
//     answered once with Reply, possibly later from another goroutine (a
//     held answer while other steps run).
//   - ServeFile answers fs/* from the disk, Terminals answers terminal/*
//     with real processes, SelectKind and Cancelled answer a permission
//     request as a user would.
//
// Concurrency: an Editor is safe for concurrent use. session/update
// notifications are recorded in arrival order on the connection's read
// goroutine, so every update the agent wrote before a response is visible
// once Call returns that response. A tap and Serve run on the read
// goroutine (Serve blocks reading until it returns); the On* handlers run
// on their own goroutines, so a handler may block.
package acptest
