// Package rendering keeps a hook dialect's rendering of a session (Claude
// Code's transcript, Codex's rollout) up to date from the session log,
// the one record the loop writes (docs/design.md: the loop never knows a
// dialect).
//
// A bridge calls Set.Sync just before its hooks run: the session log, and
// the subagent's own log inside a subagent, are read from where the last
// Sync stopped (sessionlog.Follower: only new, complete lines), turned
// into Entries (a turn begins, a message enters the history, a model
// response is billed) and handed to the dialect's Format, whose lines are
// appended to the rendering's file. A session whose dialect has no hook
// to run gets no file at all. The first Sync of a file in a process
// renders it whole from the log (a temporary file renamed over the old
// one), so a session reopened by a new process, or a log written before
// renderings existed, is covered without a rebuild step; so is a file
// removed while the process runs. Forget (at SessionEnd) drops a
// session's state.
//
// # Entries
//
// Messages come from context/message events, in log order, with the tool
// outputs a message leaves to the tool/result events before it put back
// (the log stores each output once); the history's
// clears, truncations and compactions are not entries (a rendering is
// append-only, as the writers the loop used to run were). A turn (from
// turn/start; a subagent's one turn from the hook input) begins just
// before its first message, with the session's cwd and permission mode
// then, and the model of the turn's first model/request (a prompt
// command may choose another model than the session's): entries wait in
// memory until that request is in the log. Every model/response that is
// not partial (compaction's summary call included) is a usage entry.
// Entries carry the event's time and sequence number, so that a file
// rendered twice from one log is the same file.
//
// # Concurrency
//
// A Set is safe for concurrent use. Syncs of one session are serialised
// (they write the same files); syncs of different sessions run in
// parallel. A Format's Renderer is used by one goroutine at a time.
package rendering
