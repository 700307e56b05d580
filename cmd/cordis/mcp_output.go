package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cordis-agent/cordis/loop/mcp"
)

// mcpOutputTokensEnv overrides how much of an MCP tool result reaches the
// model, as it does in Claude Code.
const mcpOutputTokensEnv = "MAX_MCP_OUTPUT_TOKENS"

// mcpOutputTokens reads MAX_MCP_OUTPUT_TOKENS: a positive number of
// tokens, or 0 (loop/mcp's default) when unset; anything else is ignored
// with a problem to report, rather than refusing to start over it.
func mcpOutputTokens(v string) (int, string) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, ""
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, fmt.Sprintf("%s=%q is not a positive whole number of tokens; MCP tool results are cut at the default %d", mcpOutputTokensEnv, v, mcp.DefaultMaxOutputTokens)
	}
	return n, ""
}
