// Package guard is what both bridges do when a guard, a PreToolUse or
// PermissionRequest hook, could not run (it did not start, was not found,
// timed out or was killed): the policy a bridge's guardFailure option
// selects, and the words that tell the user and the model.
//
// Claude Code and Codex both fail open here, and cordis's default does
// the same: a command hook that times out or cannot start renders no
// decision and the call goes on through the normal permission flow
// (Claude Code's hooks reference, "Timeouts" and exit codes: a hook that
// cannot start, 127, is non-blocking; Codex, codex-rs/hooks: a spawn
// error or a timeout makes the run Failed and the operation continues;
// see hook-dialects.md §4.3, §6.1, §6.3 and §10 beside a checkout). Unlike
// the originals, cordis always tells the user. Deny is for teams that want
// a guard that could not run to refuse the call.
//
// Concurrency: a Policy and a Failure are values; Record appends through
// the caller's Input.Record, which the loop makes safe for concurrent use.
package guard
