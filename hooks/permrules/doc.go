// Package permrules is Claude Code's permission rule language, `Tool` or
// `Tool(specifier)` (Bash(npm run test:*), Edit(/src/**), mcp__github),
// and the settings files that hold such rules, wherever the caller says
// they are (Files: cmd/cordis gives Claude Code's layout).
//
// Two parts of cordis share it: the built-in permission-rules hook, which
// applies the rules of cordis.yml and of the settings files, and the
// loop, which turns a user's "Always allow" / "Always reject" answer into a
// rule scoped to the call (ScopeOf), keeps it for the session and saves
// allow rules where Claude Code does (SaveAllowRule).
//
// Trust: a project's settings files arrive with the repository, so their
// allow rules apply only once the user vouched for them. Trust (over internal/trust's store, content-hashed
// per rule) records that vouching: when the user picks "Always allow", and
// for every allow rule of a project when the user runs `cordis hooks trust`.
// Their deny and ask rules only restrict, so they always apply.
//
// An administrator's policy (Claude Code's managed settings: ReadManaged,
// ManagedSource) is trusted and pooled above every other source; its
// lock-down keys are read here for the rest of cordis to honour.
// SessionSettings and ResolveMode read the settings files' other
// permission keys (defaultMode, additionalDirectories,
// disableBypassPermissionsMode) with their precedence; a project's
// additionalDirectories need trust like its allow rules.
//
// ReadOnlyCommand is Claude Code's other source of unasked Bash calls:
// commands that only read (a fixed list, each with the options it may
// take, over a static parse of the shell line; globs matched as bash
// matches them), which the permission-rules hook allows
// when no rule decided. NewCall also reads a program written in quotes
// as unquoted, so that rules naming it match.
//
// Concurrency: a ManagedSource is safe for concurrent use; everything
// else is a pure function of its arguments and the files it reads.
package permrules
