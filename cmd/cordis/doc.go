// Command cordis is a coding agent for editors that speak the Agent Client
// Protocol. `cordis acp` serves ACP v1 on stdin/stdout: stdout carries
// JSON-RPC frames and nothing else; logs go to stderr or --log-file.
//
// main.go parses the command line; plugins.go is the plugin registry that
// maps the names in cordis.yml (agent, llm/anthropic, llm/openai,
// llm/replay, hooks/builtin, bridge/claude, bridge/codex) to Go factories
// and assembles the loop's configuration; config/ composes the files.
// hooks_cmd.go trusts project hook files (`cordis hooks trust`). The
// binary carries no test machinery: scenarios are replayed by
// `go run ./snapshots/cmd/replay`.
//
// Concurrency: the command runs one ACP connection; see package loop and
// package acp for the contracts inside it.
package main
