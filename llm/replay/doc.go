// Package replay is the llm/replay provider: it answers the agent's model
// requests from a recorded fixture, through the same HTTP and SSE code the
// live Anthropic provider uses, and checks every request against the
// recording (DESIGN.md, decision 10). It never reads an API key or .env.
//
// # Fixtures
//
// One folder per scenario, readable in review:
//
//	fixtures/<scenario>/fixture.yml              model and maxTokens it was recorded with
//	fixtures/<scenario>/01-main/001.request.json the request body, normalized
//	fixtures/<scenario>/01-main/001.response.sse the raw SSE body that answered it
//	fixtures/<scenario>/02-subagent/001....       a Task subagent's own calls
//
// Each agent conversation (the session, each subagent, a second session)
// has its own folder; folders are bound to the agent's conversations in the
// order those make their first request, and a request belongs to the
// conversation whose first system block and first message it repeats.
// Requests are stored with temporary paths replaced by placeholders
// ({{cwd}}, {{home}}, ...) and with "system" and "tools" replaced by
// {{system}} and {{tools}}: those two live in expected sidecars beside the
// scenario (<conversation>.system.md, <conversation>.tools.json), so that a
// prompt or schema change is refreshed with -update rather than re-recorded.
//
// # How a request is answered
//
// New wraps an anthropic.Provider whose http.Client has an in-process
// RoundTripper. For each request the transport binds the conversation,
// normalizes the body (SplitRequest), compares the system prompt and tools
// with the sidecars and the rest, structurally (Canonical), with the
// recorded request, and on success returns the recorded SSE body as an
// HTTP 200 event stream, which the Anthropic provider then parses exactly
// as it would a live one. A mismatch, a request beyond the recording, or a
// conversation the fixture does not have is answered with an HTTP 400 error
// whose message carries a unified diff and the words "re-record" (or
// "refresh" for a sidecar); the loop shows it as a model error and ends the
// turn. Every failure is also written to the ledger.
//
// # The run directory
//
// The snapshot harness talks to the provider through one directory, named
// by $CORDIS_REPLAY_RUN. The harness writes run.json (Run: mode, the temp
// paths and their placeholders, the expected sidecar folder); the provider
// writes ledger.json (which fixture folder each conversation is bound to,
// how many calls it used, the failures), observed/<conversation>.system.md
// and .tools.json (what the agent sent, for -update), and, in record mode,
// record/<conversation>/NNN.* (the new recording). The ledger survives a
// restart of the agent within a run, so session/load after a restart
// continues the same recording; after the last process the harness fails
// the scenario on any failure or any recorded call left unused.
//
// # Record mode
//
// With mode "record" the transport forwards to the live API (the key comes
// from ANTHROPIC_API_KEY, the endpoint from ANTHROPIC_BASE_URL, both read
// by the Anthropic provider only in this mode) and keeps every HTTP 200
// exchange; failed attempts that the provider retries are not kept.
//
// Concurrency: a Provider is safe for concurrent use by many sessions; the
// bookkeeping is serialized by one mutex. Two sibling subagents running at
// once would bind in whichever order they call first, so scenarios keep
// subagents sequential (as the loop runs them).
package replay
