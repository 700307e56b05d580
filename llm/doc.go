// Package llm defines the provider-neutral model interface the agent loop
// calls for one streamed step, and the conversation types it carries.
//
// Providers live in sub-packages: anthropic (the Messages API over SSE),
// openai (OpenAI-compatible Chat Completions streaming) and replay (recorded
// exchanges served through the anthropic code for key-free tests).
//
// The model table (modeltable.go) is what cordis knows of each model:
// context window, output limit, request capabilities and prices.
//
// Concurrency: the types here are plain values. A Provider is safe for
// concurrent use; each Stream call delivers its deltas on the caller's
// goroutine. A ModelTable is read-only once built; the process's table is
// set once at start-up (SetModelTable) and read through an atomic
// pointer.
package llm
