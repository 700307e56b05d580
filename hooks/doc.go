// Package hooks defines the seams through which the agent loop is
// governed: the events (SessionStart, PreToolUse, Stop, ..., and the
// in-process LoopStart, PrepareRequest, LLMRequest, LLMResponse,
// ProcessToolCalls, LoopEnd), what the loop passes to hooks at each one
// (Input) and the merged Decision it honours. The loop calls seams only
// through Seams.Run; it never knows which hook decided.
//
// Pipeline is the Seams cordis runs and the Registrar every hook plugin
// registers on: built-in governance (package builtin) and the Claude and
// Codex bridges alike. Each seam has its own ordered list (priority, then
// registration order); hooks can be registered, removed, enabled and
// disabled at run time; decisions merge deterministically in pipeline
// order; a hook that fails or panics is recorded as hook/error and
// skipped; every run is recorded as hook/start and hook/result through
// Input.Record, which the loop points at the right session log (a
// subagent's own log for subagent seams). A hook that keeps working after
// its Run returned (an async hook) does so through Input.Later, the
// session's mailbox: the session owns that work and takes what it reports
// into the model's next request.
//
// Concurrency: a Pipeline is shared by every session. Run is safe for
// concurrent use, and Register, Unregister, Enable and Disable may run
// concurrently with Run (Run reads an immutable snapshot; an in-flight
// Run keeps the hooks it started with, and sees Enable/Disable from its
// next hook). Hooks run one after another within a Run and must be safe
// for concurrent Runs. Input and Decision are plain values owned by the
// caller; Run may update the Input it is given.
package hooks
