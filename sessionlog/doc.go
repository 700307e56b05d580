// Package sessionlog is the append-only JSONL session log: the record of
// every turn as it happens, and the truth from which session/load rebuilds a
// session (DESIGN.md, decision 9).
//
// # Files
//
// A session's log is <stateDir>/sessions/<sessionId>.jsonl (Path); a Task
// subagent's is <stateDir>/sessions/<parentSessionId>/subagents/<agentId>.jsonl
// (SubagentPath). NewID makes session ids. Ids also arrive from the network
// (session/load) and from the model (tool call ids in agent ids), so callers
// check them with ValidID, and the path helpers hash any id that fails it
// rather than let it leave the directory.
//
// # Format
//
// One JSON object per line, '\n'-terminated, no raw newline inside:
//
//	{"v":1,"seq":1,"time":"2025-01-02T03:04:05.123456789Z","type":"session/start","data":{"sessionId":"sess_…","cwd":"/src/app","model":"claude-sonnet-4-5"}}
//	{"v":1,"seq":2,"time":"2025-01-02T03:04:06Z","type":"turn/start","data":{"turnId":"t1","prompt":"fix the failing test"}}
//	{"v":1,"seq":3,"time":"2025-01-02T03:04:06.5Z","type":"context/message","data":{"role":"user","content":[…]}}
//
// v is the envelope version: 1, or 2 for a line an older reader would
// misread (Version, Versioned); a reader refuses a higher one. seq
// counts 1, 2, 3, ... with no gaps. time is RFC 3339 with nanoseconds, UTC.
// type is one of the Type constants; data is the loop's business.
//
// # Crashes
//
// Each event is written with a single write(2) on an O_APPEND file, so a
// crash can leave at most one torn last line. Read skips such a line with a
// warning and returns everything before it; Open removes it before appending
// (see Open for why it truncates rather than isolates it). A bad line anywhere
// else means the log was damaged by something other than a crash, and Read
// reports it as a *FormatError naming file and line instead of guessing.
// Load, which session/load uses, recovers instead: it keeps every event
// before the first inconsistency, saves the rest beside the log
// (DroppedPath) and cuts it off so that appends continue a sound log, and
// reports what it dropped (Writer.Dropped). A file of which it would keep
// nothing (not one line is the first event) is no damaged log: Load refuses
// it (ErrNoEvents) and leaves it untouched; an empty file loads.
//
// # Following
//
// Follow returns a Follower, which reads a log incrementally: each Next
// returns the events of the complete lines appended since the last one,
// never a line still being written (the hook dialects render their
// transcripts this way).
//
// # Concurrency
//
// A Writer is safe for concurrent Append. A log has one Writer at a time,
// in any process: Create, Open and Load take an exclusive flock on the file
// (waiting up to a second for a process that is dying) and fail with
// ErrLocked while another Writer holds it; Close or the process's death
// releases it. Readers (Read, List) may run
// while a Writer appends: they see a prefix of the log, possibly ending in a
// line still being written, which they treat as a torn tail.
package sessionlog
