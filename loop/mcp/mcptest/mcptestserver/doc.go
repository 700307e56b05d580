// Command mcptestserver is the mcptest stdio MCP server as a program, for
// harnesses that run the real cordis binary (the snapshot scenarios):
//
//	go build -o /tmp/mcptestserver ./loop/mcp/mcptest/mcptestserver
//
// Its behaviour is chosen by the mcptest environment variables.
//
// Concurrency: one MCP session over stdio, served by mcptest.Serve.
package main
