package main

import (
	"os"

	"github.com/cordis-agent/cordis/loop/mcp/mcptest"
)

func main() { os.Exit(mcptest.Serve(os.Stdin, os.Stdout, os.Stderr)) }
