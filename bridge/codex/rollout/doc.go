// Package rollout writes a session's conversation as a Codex rollout: the
// JSONL file Codex hooks receive as transcript_path (and
// agent_transcript_path on SubagentStop), because real Codex hooks parse it
// (reference: kkroekerMTB/mtb-codex-hooks log_hook.py takes every line's
// payload and reports the last token_count's info). Codex calls the format
// "not a stable interface"; this package writes the shapes Codex's own
// rollout recorder writes (RolloutLine in codex-rs/protocol), as far as
// cordis knows the values.
//
// # Format
//
// One JSON object per item, '\n'-terminated, {"timestamp", "type",
// "payload"}; timestamps are RFC 3339 UTC with milliseconds:
//
//	{"timestamp":"…","type":"session_meta","payload":{"id":"sess_…","timestamp":"…","cwd":"/src/app","originator":"cordis","cli_version":"0.1.0","source":"vscode","model_provider":"anthropic"}}
//	{"timestamp":"…","type":"turn_context","payload":{"turn_id":"turn-1","cwd":"/src/app","approval_policy":"untrusted","sandbox_policy":{"type":"danger-full-access"},"model":"claude-sonnet-4-5","summary":"auto"}}
//	{"timestamp":"…","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"fix the test"}]}}
//	{"timestamp":"…","type":"event_msg","payload":{"type":"user_message","message":"fix the test"}}
//	{"timestamp":"…","type":"response_item","payload":{"type":"reasoning","summary":[],"content":[{"type":"reasoning_text","text":"…"}]}}
//	{"timestamp":"…","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Running it."}]}}
//	{"timestamp":"…","type":"response_item","payload":{"type":"function_call","name":"Bash","arguments":"{\"command\":\"go test\"}","call_id":"toolu_1"}}
//	{"timestamp":"…","type":"event_msg","payload":{"type":"agent_message","message":"Running it."}}
//	{"timestamp":"…","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{…},"last_token_usage":{…},"model_context_window":200000},"rate_limits":null}}
//	{"timestamp":"…","type":"response_item","payload":{"type":"function_call_output","call_id":"toolu_1","output":"FAIL"}}
//
// session_meta is the first line of a new file; its source is "vscode",
// Codex's source for editor clients, or for a subagent
// {"subagent":{"thread_spawn":{…}}} naming the parent session and depth,
// with the subagent's own id. A turn_context line starts
// every turn: approval_policy and sandbox_policy are mapped from the
// permission mode (cordis has no sandbox: whatever runs, runs with the
// user's access, so only plan mode is read-only; acceptEdits has no Codex
// approval policy and leaves it out). A message becomes response_item lines
// in block order (adjacent text blocks share one message; images are
// input_image data URLs; tool results are function_call_output with their
// text), then an event_msg: user_message with the user's own text (text
// blocks that are a whole <system-reminder>, cordis's injected context,
// are left out of it; a message of only those, or of tool results, gets
// none), agent_message with the assistant's text. token_count follows each
// model response: usages in OpenAI's terms (input_tokens includes cached
// and cache-write input, total_tokens is input plus output; cordis does
// not know reasoning tokens apart, so reasoning_output_tokens is 0),
// total_token_usage cumulative over the file. Tool names and arguments are
// cordis's own (Bash, Edit…), not Codex's.
//
// # Files
//
// Path puts a session's rollout beside its Claude Code transcript:
// <stateDir>/sessions/<sessionId>/rollout.transcript.jsonl; AgentPath
// puts a subagent's next to its log:
// <stateDir>/sessions/<parentId>/subagents/<agentId>.rollout.transcript.jsonl.
// The .transcript.jsonl suffix marks both as derived files for hooks, not
// session logs.
//
// # Use
//
// Format is a rendering.Format: the Codex bridge renders a session's
// rollout from its session log, as its hooks are about to run
// (bridge/internal/rendering), so a session without Codex hooks has none.
// A turn_context comes from the turn's turn/start (a subagent's from its
// hook input) with the session's cwd and mode then and the model of the
// turn's first request; a token_count from every complete model/response
// (compaction's included), after the response's message. Timestamps are
// the log events'.
//
// # Concurrency
//
// Format is a value safe for concurrent use; a renderer (one file's
// cumulative usage) is used by one goroutine at a time. The package does
// not import package loop.
package rollout
