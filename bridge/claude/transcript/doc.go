// Package transcript writes a session's conversation as a Claude Code
// transcript: the JSONL file whose path hooks receive as transcript_path
// (and agent_transcript_path for subagents), because real Claude Code hooks
// parse it (reference §5.5: ralph-wiggum greps `"role":"assistant"` lines
// and reads `.message.content[].text`).
//
// # Format
//
// One JSON object per message, '\n'-terminated, in Claude Code's shape:
//
//	{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/src/app","sessionId":"sess_…","version":"0.1.0","type":"user","message":{"role":"user","content":[{"type":"text","text":"fix the test"}]},"uuid":"…","timestamp":"2025-01-02T03:04:05.123Z"}
//	{"parentUuid":"…","isSidechain":false,"userType":"external","cwd":"/src/app","sessionId":"sess_…","version":"0.1.0","type":"assistant","message":{"id":"msg_…","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Done."},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"go test"}}]},"uuid":"…","timestamp":"…"}
//	{"parentUuid":"…",…,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]},"uuid":"…","timestamp":"…"}
//
// Each line's parentUuid is the previous line's uuid. Content is always a
// list of blocks: text, image ({source: {type: base64, media_type, data}}),
// tool_use, tool_result (content is a string when it is all text),
// thinking and redacted_thinking. A subagent's transcript has isSidechain
// true and its agentId.
//
// # Files
//
// Path puts a session's transcript beside its session log, in the
// session's own directory: <stateDir>/sessions/<sessionId>/transcript.jsonl;
// AgentPath puts a subagent's next to the subagent's log:
// <stateDir>/sessions/<parentId>/subagents/<agentId>.transcript.jsonl.
//
// # Use
//
// Format is a rendering.Format: the Claude bridge renders a session's
// transcript from its session log, as its hooks are about to run
// (bridge/internal/rendering), so a session without Claude hooks has
// none. The session log stays the truth; a transcript rendered twice
// from one log is the same file (line uuids derive from the session,
// agent and log sequence number; timestamps are the log events').
// Assistant lines carry the model the session started with.
//
// # Concurrency
//
// Format is a value safe for concurrent use; a renderer (one file's
// parentUuid chain) is used by one goroutine at a time. The package does
// not import package loop.
package transcript
