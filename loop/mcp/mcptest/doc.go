// Package mcptest provides MCP servers for tests: a small hand-written
// stdio server with scripted behaviours (crash, hang, list_changed, ...)
// that tests run by re-executing their own binary, and an in-process
// server built on the official SDK for the http and sse transports.
//
// A test package that starts the stdio server calls ServeIfRequested from
// an init function, so that its test binary turns into the server when
// the environment asks for it:
//
//	func init() { mcptest.ServeIfRequested() }
//
//	spec := mcp.Spec{Name: "t", Command: os.Args[0], Env: mcptest.Env("")}
//
// Concurrency: the helpers may be used by parallel tests; each call starts
// its own server.
package mcptest
