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
// SubagentPath puts a subagent's next to the subagent's log:
// <stateDir>/sessions/<parentId>/subagents/<agentId>.transcript.jsonl. Ids
// are mapped to file names exactly as package sessionlog maps them. The
// session log stays the truth; the transcript is derived from it and can
// be rebuilt at any time with Rewrite (session/load does so).
//
// # Use
//
//	w, err := transcript.Open(transcript.Path(stateDir, id), transcript.Options{SessionID: id, Cwd: cwd, Version: v})
//	...
//	err = w.Append(msg) // after each message enters the history
//	...
//	w.Close()
//
// Open appends to an existing file and continues its parentUuid chain; a
// torn last line (a crash mid-write) is cut off first.
//
// # Concurrency
//
// A Writer is safe for concurrent use; each Append is one write(2) on an
// O_APPEND file, so a hook reading the file sees whole lines (plus at most
// one line being written). Use one Writer per file per process. The
// package does not import package loop.
package transcript
