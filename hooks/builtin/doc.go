// Package builtin holds cordis's built-in governance hooks, configured by
// the `hooks/builtin` plugin entry of cordis.yml (Config) and registered on
// a hooks.Registrar (in cordis, the hooks.Pipeline the loop calls) by
// Register. One file per hook:
//
//	hook              seams (priority)                              default
//	context-injector  SessionStart (10)                             on: AGENTS.md, CLAUDE.md
//	permission-rules  PreToolUse (10)                               on, no rules
//	input-sanitize    PreToolUse (20)                               on: all pattern sets
//	budget-check      LoopStart (10), PreToolUse (30)               off until a limit is set
//	audit-log         PostToolUse* (10)                             off until a file is set
//	result-compress   PostToolUse* (20)                             off until maxTokens is set
//	todo-enforcer     PostToolUse (40), Stop, SubagentStop (10)     off until remindersPerTurn is set
//	metrics           PostToolUse* (90)                             on
//	context-monitor   LLMResponse (10)                              on: warn 60%, compact 70%
//
// Lower priorities run first; hooks registered by bridges pick their own.
// Hooks that keep per-session state (metrics, context-monitor,
// todo-enforcer) also register on SessionEnd (90) to forget it. A name in
// Config.DisabledHooks registers that hook switched off (a Pipeline can
// Enable it later); a hook its configuration turns off is not registered.
//
// Concurrency: the hooks are shared by every session and safe for
// concurrent use; per-session state is kept under a lock, and the audit
// log writes one line per write call under its own lock.
package builtin
