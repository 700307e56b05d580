// Package trust records which project-level hook commands the user has
// reviewed, so that the Claude and Codex bridges run a hook found by
// discovery in a project folder only after `cordis hooks trust` vouched for
// it, and skip (and report) it when it is new or was edited since.
//
// A hook is identified by a hash of its normalized definition (dialect,
// event, matcher, handler type and command; see Hook.Hash). The store keeps,
// per declaring file, the set of hashes that were trusted, in
// <state dir>/trusted-hooks.json. Editing a command changes its hash, so
// the edited hook is untrusted again until it is re-trusted. Hooks named
// explicitly in cordis.yml and user-level files are not subject to trust:
// the caller decides which hooks it checks.
//
// A bridge adopts it in four steps (bridge/codex and bridge/claude both
// do): take a *Store in its options (cmd/cordis passes
// trust.Open(stateDir)); for each handler of a project file found by
// discovery, build its Hook and skip the handler when Store.Skipped says
// so; report each skipped hook once per session (Notices.Take gives the
// Decision.SystemMessages entries, Skip.Notice worded) and in Problems and
// Doctor (Skip.Problem); and export a Discover(cwd) []Discovered that
// cmd/cordis/hooks_cmd.go lists in hookDiscoverers, so that `cordis hooks
// trust` covers its files.
//
// Concurrency: a Store is safe for concurrent use by many goroutines. It
// re-reads the file when its size or modification time changed, so a
// `cordis hooks trust` run by another process is seen by running sessions.
// Writes go to a temporary file that is renamed over the store, so a reader
// never sees a torn file; two processes trusting at the same instant may
// lose one update (the last rename wins).
package trust
