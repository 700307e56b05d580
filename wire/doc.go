// Package wire is the wire-conformance suite (issue 19): it captures the
// request bodies cordis builds for both providers and has them checked
// against the official SDK types and the API's rules.
//
// capture_test.go rebuilds the full Anthropic Messages body of every
// recorded snapshot request (fixtures/<scenario>/<conversation>/NNN.request.json
// with the {{system}} and {{tools}} sidecars of snapshots/<scenario>/expected
// put back and path placeholders expanded), and builds a few representative
// bodies of both providers through llm/anthropic and llm/openai themselves
// (thinking, images, parallel tool calls and results, reasoning_content,
// and provider-switch: one history made by Anthropic, DeepSeek and servers
// with ids others refuse, sent to both providers and to Mistral and
// Gemini models, whose id and extra_content rules rules.mjs checks).
// With $WIRE_OUT set it writes them there as anthropic/*.json and
// openai/*.json; without, it only checks that they can be built.
//
// run.sh runs the capture, then check.mjs: every body becomes a TypeScript
// object literal typed as the SDK's MessageCreateParamsStreaming or
// ChatCompletionCreateParamsStreaming and is compiled with tsc --strict
// (an unknown field is an excess-property error), and the rules the types
// cannot express are checked on the JSON (see check.mjs). The npm packages
// are pinned in package-lock.json and installed with npm ci.
//
// The response side: streams/<provider>/*.sse are Server-Sent Event bodies
// written by hand from the documented event grammars (each starts with the
// comment line ": recording: authored" and an ": about:" line). decode_test.go
// serves each from a loopback server, in 13-byte pieces, to cordis's real
// provider (llm/anthropic, llm/openai) and, with $WIRE_DECODED set, writes
// the final message or failure as normalized JSON; accumulate.mjs feeds the
// same bytes to the official SDK's stream accumulator (MessageStream
// finalMessage, ChatCompletionStream finalChatCompletion) through a custom
// fetch, and compares the two field by field under the mapping documented
// at its top. Where cordis knowingly differs, KNOWN in accumulate.mjs says
// so and why; an entry no stream uses is itself a failure.
//
// Concurrency: the tests here run sequentially; each TestDecode subtest
// owns its loopback server.
//
//	bash wire/run.sh
package wire
