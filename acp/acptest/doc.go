// Package acptest is a scripted ACP editor for tests, in the style of
// net/http/httptest: Start serves an acp.Agent in-process over pipes,
// StartProcess drives a real `cordis acp` binary over its stdio. Both
// record every frame the agent writes and fail the test on any stdout line
// that is not a JSON-RPC message.
//
// Concurrency: an Editor is safe for concurrent use. session/update
// notifications are recorded in arrival order on the connection's read
// goroutine, so every update the agent wrote before a response is visible
// once Call returns that response. Reverse requests (permission, fs,
// terminal) are answered on their own goroutines, so a handler may block.
package acptest
