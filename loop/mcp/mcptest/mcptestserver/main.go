// Command mcptestserver is the mcptest stdio MCP server as a program, for
// harnesses that run the real cordis binary (the snapshot scenarios):
//
//	go build -o /tmp/mcptestserver ./loop/mcp/mcptest/mcptestserver
//
// Its behaviour is chosen by the mcptest environment variables.
package main

import (
	"os"

	"github.com/cordis-agent/cordis/loop/mcp/mcptest"
)

func main() { os.Exit(mcptest.Serve(os.Stdin, os.Stdout, os.Stderr)) }
