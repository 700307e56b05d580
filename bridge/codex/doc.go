// Package codex runs unmodified OpenAI Codex CLI hook programs on cordis's
// seams, with Codex's semantics where they differ from Claude Code's (see
// ../shared/reference/hook-dialects.md; bridge/claude is the other dialect).
//
// # Configuration
//
// Codex declares hooks in two forms, and the bridge reads both: a
// hooks.json ({"hooks": {"<Event>": [{"matcher", "hooks": [{"type":
// "command", "command", "timeout"}]}]}}) and the [hooks] table of a
// config.toml, the same tree written as TOML:
//
//	[[hooks.PreToolUse]]
//	matcher = "^Bash$"
//	[[hooks.PreToolUse.hooks]]
//	type = "command"
//	command = "python3 check.py"
//	timeout = 30
//
// The plugin entry `bridge/codex` takes an optional `path`: one file to
// run, read as a config.toml when its extension is .toml and as a
// hooks.json otherwise. Without it the bridge reads, for each session,
// the user layer (~/.codex/hooks.json, then ~/.codex/config.toml; the
// folder is $CODEX_HOME when that is set, as in Codex) and
// then the project layer (<cwd>/.codex/hooks.json, then
// <cwd>/.codex/config.toml); every file's hooks run, in that order. When
// a layer declares hooks in both its files, both are used (hooks.json
// first, as Codex does) and a warning goes to the log, Problems and
// Doctor.
//
// Both forms are validated alike (the TOML table is converted to JSON and
// parsed by the same code): a handler's timeout is in seconds (at least
// 1, at most a week; default 600, SessionEnd 1 and at most 3), and
// timeout_sec is an alias. A missing file is a silent no-op, and so is a
// config.toml without [hooks] (Codex's own trust records in
// [hooks.state."..."] are ignored). A malformed hooks.json and a
// config.toml that is not valid TOML (anywhere in the file; the message
// gives the line and column) are ignored as a whole, and the other files
// still load. In a file that parses, a bad entry (an unknown event, a
// group or handler of the wrong shape, a field of the wrong type, an
// invalid matcher) or a handler Codex would not run (prompt, agent,
// mcp_tool or http handlers, empty commands) is skipped
// alone: Codex would ignore the whole file, but then one mistyped field
// silently drops every guard in it. Every such problem goes to the log,
// Problems and Doctor, and is shown to each session once (a SystemMessages
// entry at its first turn-scoped seam, like a skipped untrusted hook).
// An "async": true hook runs in the background, at most 8 of a session at
// once (async.go). Files are re-read when they change. config.toml is decoded with
// github.com/pelletier/go-toml/v2.
//
// # Trust
//
// Hooks found in a project (<cwd>/.codex/hooks.json and the [hooks] of
// <cwd>/.codex/config.toml) run only after the user trusted them with
// `cordis hooks trust`, which records a hash of each hook's definition
// per file in the state directory (package internal/trust; Discover lists
// each project file, a config.toml only when it has hooks or is broken).
// A new or edited project hook is skipped; the skip is reported to the
// user once per session (a SystemMessages entry at the session's first
// turn-scoped seam), in the log, and in Problems — never silently. The
// explicit path from cordis.yml and the user-level files are trusted by
// being configured.
//
// # Dialect
//
// Each matching command runs through `$SHELL -lc` (else `/bin/sh -lc`) in
// the session's cwd, concurrently, in its own process group
// (bridge/internal/hookproc); duplicates are not merged (Codex runs them
// all) and outcomes are merged in configuration order. Its stdin is
// Codex's input: session_id, transcript_path (the session's Codex rollout,
// rendered from the session log by package rollout), cwd,
// hook_event_name, model,
// permission_mode, turn_id and the event's fields (stop_hook_active on
// Stop/SubagentStop). Tools carry Codex's names: Bash with
// tool_input.command; Edit and Write become apply_patch with the patch
// text in tool_input.command (and answer to the matchers Edit and Write);
// other tools keep their names and inputs. Matchers are an exact `|` list
// of [A-Za-z0-9_] names or an unanchored regular expression, and are
// ignored on UserPromptSubmit and Stop.
//
// Outputs follow Codex: exit 2 blocks only with non-empty stderr (stdout
// ignored); any other non-zero exit fails the run whatever stdout says;
// invalid or unsupported JSON (PreToolUse ask/defer, legacy approve, allow
// without updatedInput, deny without a reason, Stop plain text or
// hookSpecificOutput, ...) fails the run. A failed run is logged and
// recorded as hook/error in the session log and contributes nothing
// (fail-open). A PreToolUse or PermissionRequest hook that could not run
// (did not start or was not found, timed out, was killed) fails open too,
// as in Codex, but the user is always told; with the entry's
// guardFailure: deny it refuses the call instead (package
// bridge/internal/guard). At most a few commands per CPU run at once
// (hookproc.RunAll); a command's timeout counts from its own start. A PostToolUse block replaces the tool result the model sees
// with the feedback; a Stop block continues the turn with the reasons
// joined by blank lines (the loop caps consecutive blocks); any
// `continue: false` wins. SessionStart context becomes system-side
// context; additionalContext of other events is added to what the model
// reads next.
//
// Every Codex event has a seam: PostCompact runs after each compaction
// (trigger manual or auto; `continue: false` ends the turn), Interrupt
// when the user cancels a running turn (advisory: only systemMessage is
// used; 1 s by default, 3 s at most, as SessionEnd).
//
// # Concurrency
//
// A Bridge is shared by every session: Register, Problems, Doctor and the
// registered hooks' Applies and Run are safe for concurrent use.
// Discovery, caching, trust, running and reporting are the bridge
// engine's (bridge/internal/engine); this package holds Codex's tables and
// rules, and a per-session memory (files' content before an edit,
// subagent types) written only while a seam call runs, under a mutex that
// is never held while a command runs or a file is read.
package codex
