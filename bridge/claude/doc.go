// Package claude is the Claude Code hook bridge (`bridge/claude`): it runs
// unmodified Claude Code hook commands on cordis's seams, with Claude
// Code's configuration, matchers, stdin, environment, exit codes and JSON
// outputs (../shared/reference/hook-dialects.md, "current" semantics).
//
// # Configuration
//
// Config.Path names one hooks file in Claude Code's settings shape:
//
//	{"hooks": {"PreToolUse": [{"matcher": "Bash|Edit",
//	  "hooks": [{"type": "command", "command": "./check.sh", "timeout": 30}]}]}}
//
// Without a path, a session's hooks come from ~/.claude/settings.json
// ($CLAUDE_CONFIG_DIR/settings.json when that is set, as in Claude Code),
// <cwd>/.claude/settings.json and <cwd>/.claude/settings.local.json of the
// session's cwd, appended in that order (never replaced); disableAllHooks
// in the file of highest precedence that sets it turns them off. Files are
// cached by path and re-read when their modification time or size
// changes. A missing file is a no-op (an explicit path that does not exist
// registers no hook at all); a malformed file is logged as an error,
// reported by Problems and Doctor, and the other files still load. In a
// file that parses, a bad entry (an invalid matcher, a field of the wrong
// type, an unknown event or hook type) is skipped alone and reported the
// same way. Each session is also told of every such problem once, at its
// first turn, as a system message. Hooks of type
// prompt, agent, http and mcp_tool, shells other than sh and bash, and
// Claude events cordis has no seam for are skipped with a warning.
//
// A hook with "async" (or "asyncRewake", which implies it) runs in the
// background (engine.Backgrounder): the seam does not wait for it, and
// when it ends its JSON additionalContext and systemMessage (an
// asyncRewake hook's stderr, or stdout, when it exits 2) go to the
// session for the model's next request (async.go).
//
// # Trust
//
// The project files found by discovery (<cwd>/.claude/settings.json and
// <cwd>/.claude/settings.local.json, unless cwd is the home directory)
// are written by whoever wrote the repository, so their hooks run only
// once the user trusted them with `cordis hooks trust` (see internal/trust;
// Options.Trust is the store). A hook is identified by its event, matcher
// and command line (program and args in the exec form; "shell": "bash"
// counts too): editing any of them makes it untrusted again. An untrusted
// hook is skipped, never silently: each session is told once, at its
// first turn, as a system message, and Problems and Doctor list it.
// ~/.claude/settings.json and a file named by Config.Path need no trust.
// Discover lists a directory's project files for `cordis hooks`.
//
// # Execution
//
// All commands matching an event run in parallel (at most a few per CPU
// at once; each timeout counts from the command's own start) through sh -c (bash -c
// with "shell": "bash"; the exec form with "args" runs no shell) in the
// session's cwd, each in its own process group, with the event's JSON on
// stdin, CLAUDE_PROJECT_DIR set to the session cwd (and CLAUDE_ENV_FILE on
// SessionStart, a scratch file whose content becomes Decision.ShellEnv:
// the loop runs it before every later Bash command), and
// identical commands run once. Timeouts: the hook's own (seconds), else
// 600 s, UserPromptSubmit 30 s, SessionEnd 1.5 s (at most 60 s). A timeout
// or cancellation kills the group. See bridge/internal/hookproc.
//
// # Decisions
//
// Each command's result is translated as Claude Code does today: exit 0
// with plain stdout adds context on UserPromptSubmit and SessionStart
// only; stdout beginning with '{' is JSON; exit 2 blocks as the event
// allows, with the JSON reason or else stderr as the feedback; any other
// exit is a non-blocking error unless stdout is a schema-valid JSON
// object, which then decides. A command that fails (it times out,
// crashes, cannot start, or its output is unusable) has no say; it is
// logged and recorded as hook/error, and the other commands still decide. For a PreToolUse or PermissionRequest hook that is
// Claude Code's behaviour too (the call proceeds), but cordis always tells
// the user and records hook/error; with the entry's guardFailure: deny
// such a guard denies the call instead (package bridge/internal/guard). The verdicts of one event are merged in configuration
// order: continue:false wins over everything, then deny > defer > ask >
// allow (defer and ask both become hooks.Ask: the editor is asked, never
// skipped), blocks are sticky, updatedInput and updated outputs are the
// last given, contexts and system messages are concatenated.
//
// # Concurrency
//
// A Bridge is shared by every session of the process: Run, Applies,
// Problems and Doctor are safe for concurrent use, and one session's run
// never waits for another's. Discovery, caching, trust, running and
// reporting are the bridge engine's (bridge/internal/engine); this package
// holds Claude Code's tables and rules.
package claude
