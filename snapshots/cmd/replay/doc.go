// Command replay replays one snapshot scenario key-free and prints the
// conversation: prompts, streamed text, tool calls with their permission
// decisions, and hook events; then it says whether the run matches the
// scenario's expected files, as go test ./snapshots does.
//
//	go run ./snapshots/cmd/replay tool-permission-approved
//	go run ./snapshots/cmd/replay --keep snapshots/subagent
//
// It is a developer tool of the checkout, not a verb of the cordis binary:
// it builds cordis (and, for scenarios that pass it to the editor, the
// test MCP server) from the checkout it runs in, into a temporary folder,
// and runs them through the snapshot harness (package snapshots).
//
// Concurrency: one scenario, one run.
package main
