// Package mcpjson reads MCP server definitions in Claude Code's format: a
// project's .mcp.json, the mcpServers of the user's ~/.claude.json (its
// top level and its per-project entries) and a plugin's .mcp.json, each
// {"mcpServers": {"<name>": {"type": "stdio", "command", "args", "env"} |
// {"type": "http"|"sse", "url", "headers"}}}. It parses them into
// neutral Server values, expands ${VAR} and ${VAR:-default} as Claude Code
// does (from a lookup the caller restricts: cordis never lets a file
// expand a provider key), and gives each definition an identity, its
// canonical JSON as written, under which a user's approval is recorded.
//
// A leaf package: it imports nothing of cordis and reads no environment
// of its own. Its functions are safe for concurrent use.
package mcpjson
