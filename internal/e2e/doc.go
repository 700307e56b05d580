// Package e2e is the end-to-end test package: its tests may import
// everything (the loop, both hook dialects, the session log) to check
// what only the parts together do: full turns through each hook bridge,
// both bridges on one pipeline, trust of project hooks, and a dialect's
// rendering of a session the loop ran. It holds no product code; nothing
// imports it. The loop runs in loop/looptest's harness, so nothing under
// loop/, tests included, names a dialect.
//
// # Concurrency
//
// Each test builds its own agent, state directory and model server, so
// tests may run in parallel.
package e2e
