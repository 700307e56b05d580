// Package anthropic is the llm.Provider for the Anthropic Messages API
// (POST /v1/messages with "stream": true), written against net/http with no
// SDK.
//
//	p, err := anthropic.New(anthropic.Config{Model: "claude-sonnet-4-5"})
//	if err != nil { ... }
//	resp, err := p.Stream(ctx, req, func(d llm.Delta) { ... })
//
// Pieces that other packages reuse:
//
//   - EncodeRequest produces the exact request body, deterministically (struct
//     field order, no map iteration), so a replay harness can diff recorded
//     requests byte for byte.
//   - DecodeStream assembles an llm.Response from a raw SSE body, so a
//     replay provider can serve recorded streams through the same code.
//   - RepairJSON completes truncated tool input.
//
// Tool input that is not valid JSON: the streamed input_json_delta
// fragments are parsed at content_block_stop. When they do not parse, the
// decoder tries RepairJSON. If the repair yields a JSON object, Block.Input
// is the repaired object and Block.Text keeps the raw fragments, marking the
// input as repaired (Text is otherwise unused on tool_use blocks). If not,
// Block.Input is nil and Block.Text holds the raw fragments, so the loop can
// report the broken call to the model instead of running it. A tool_use
// that was still streaming when the output limit stopped the response
// (stop_reason max_tokens, the last block started) is treated the same
// way whatever its fragments parse or repair to: Input nil, Text the raw
// fragments, so a cut-off call is never runnable. EncodeRequest sends a
// nil Input back as {} and never sends Text for tool_use.
//
// Another provider's history (after /model): thinking without a signature
// is never sent, and tool_use ids outside ^[a-zA-Z0-9_-]+$ or repeated
// from an earlier call are renamed in the request with their results
// (llm/internal/toolids). A content block type the decoder does not know
// is dropped knowingly (llm.Block cannot carry it, so it could not go back
// as received), except server tool calls and *_tool_result blocks, which
// are kept raw. A content_block_start's non-empty input stands when no
// input_json_delta follows, and is replaced by the deltas when they do.
//
// Errors are *llm.Error values. Failures before the stream starts (HTTP 408,
// 409, 429, 5xx including 529, transport errors) are retried with the
// policy in llm/internal/retry; each wait is announced to the sink as
// an llm.DeltaRetry. A 429 for an exhausted spend limit is ErrSpendLimit and
// is not retried. Failures after the stream started (an "error" event after
// HTTP 200, a dropped connection, an idle stall) are never retried; Stream
// returns the partial response with the error.
//
// With Config.FallbackModel set, a circuit breaker switches to the fallback
// after FallbackAfter consecutive overloaded responses from the primary
// model, and probes the primary again after FallbackCooldown.
//
// Concurrency: a Provider is safe for concurrent use by many sessions. Its
// only mutable state is the circuit breaker, which is shared by all calls and
// guarded by a mutex. Each Stream call delivers deltas on its caller's
// goroutine.
package anthropic
