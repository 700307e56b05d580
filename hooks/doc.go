// Package hooks defines the seams through which the agent loop is
// governed: the events (SessionStart, PreToolUse, Stop, ...), what the loop
// passes to hooks at each one (Input) and the merged Decision it honours.
// Built-in governance and the Claude and Codex bridges all plug in here; the
// loop never knows which hook decided.
//
// Concurrency: a Seams implementation is shared by every session and must be
// safe for concurrent Run calls. Input and Decision are plain values owned by
// the caller.
package hooks
