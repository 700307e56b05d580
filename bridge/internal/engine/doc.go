// Package engine is the one hook-bridge engine: it runs a dialect's hook
// commands on cordis's seams. A dialect (bridge/claude, bridge/codex) is a
// small Dialect: its seams and event keys, the layers (hook files) to read
// for a session's cwd, a parser from a file to handlers, a matcher, and a
// Call that renders the hook input, interprets each process result and
// merges the verdicts. The engine owns everything else, the same way for
// every dialect:
//
//   - discovery: the dialect's layers, in order; a project layer runs only
//     once trusted (internal/trust), an explicit one that does not exist
//     registers nothing;
//   - caching: each file is parsed once per version (modification time
//     and size), and its problems are logged once per version;
//   - trust and notices: untrusted project hooks are skipped, and each
//     session is told once (at its first turn-scoped seam) of every
//     skipped hook and every file problem;
//   - planning: files in layer order, each file's handlers of the event in
//     configuration order, filtered by the dialect's matcher; a file may
//     turn hooks off (File.DisableAll: a managed file every hook, another
//     every hook but the managed ones), and an administrator's policy
//     may allow only managed layers (Options.ManagedOnly, also the
//     /hooks switch policy);
//   - running: hookproc.RunAll, a few commands per CPU at most, results
//     in configuration order (identical commands once when Info.Dedup);
//   - background hooks (a Backgrounder dialect's async hooks, on every
//     seam but SessionEnd): started first, on goroutines the session owns
//     (hooks.Input.Later), at most Info.AsyncLimit of a session at once;
//     the call neither waits for nor merges them, and what the dialect's
//     Late makes of each result is delivered to the session (for the
//     model's next request) when it ends. Without a Later they run in
//     the call and only their context joins its decision;
//   - failures: every failed run is logged and recorded as hook/error
//     (guard.Record) and contributes nothing; the bridge's Run returns no
//     error for it, so the other hooks of the call still decide. A guard
//     (PreToolUse, PermissionRequest) that could not run is also reported
//     to the user and follows guardFailure (package guard);
//   - reports: Problems, Doctor lines and Discover (`cordis hooks`).
//
// Applies is cheap and has no effect besides the file cache (a stat per
// file, a read when one changed): it plans and says whether there is
// anything to run, to report or (Observer) to observe; the dialect's
// bookkeeping happens in Prepare, during Run.
//
// # Adding a hook source
//
// A new source of hooks in an existing dialect (a plugin's hooks.json,
// managed settings) is a layer: return it from the dialect's Layers, in
// precedence order, with Project set when whoever wrote it is not the
// user (it then runs only once trusted, and `cordis hooks` lists it) and
// Format set when it needs another parser. Nothing else changes.
//
// # Adding a dialect
//
// A third dialect is a table: a package with its Config, a handler type
// (Identity, Advisory), and a Dialect: Info (its names; whether identical
// commands run once), Seams (which cordis seams run which of its events),
// Layers, Parse, Match and Prepare, whose Call builds each
// hookproc.Command, interprets each result by the dialect's exit-code and
// output rules, and merges the verdicts. Its Bridge wraps New, and
// cmd/cordis registers it like the others.
//
// # Concurrency
//
// An Engine is shared by every session of the process: Register, Hook,
// Applies, Run, Problems and Doctor are safe for concurrent use, and one
// session's run never waits for another's. Its mutable state (the file
// cache, the notices, the warnings logged) is guarded by mutexes that are
// never held while a file is read or a command runs. Background hooks run
// on the session's goroutines (hooks.Later.Go) with a copy of the input,
// and a Backgrounder's Late may be called concurrently, after the call's
// Close. A Dialect's Match, Observes and Prepare may be called
// concurrently; a Call is used by one goroutine.
package engine
