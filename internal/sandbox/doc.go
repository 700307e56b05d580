// Package sandbox confines a command cordis runs for the model with the
// kernel's own mechanisms, so that what the command may touch is decided
// by Linux, not by reading shell text. A Policy names what the command may
// read, write and reach over the network; Start starts an exec.Cmd under it.
//
// Two ways, one policy:
//
//   - On a fresh locked OS thread (Start, when the policy has nothing to
//     carve out of a writable tree): PR_SET_NO_NEW_PRIVS, a Landlock domain
//     (files and, from ABI 4, TCP ports), a seccomp filter (socket families,
//     io_uring) and CAP_SYS_PTRACE dropped from the bounding set, all applied
//     to that one thread, which then forks the command and is discarded.
//     cordis itself is never restricted. It costs no extra exec.
//   - Through a helper (the cordis binary re-executed with HelperVerb, in new
//     user, mount and PID namespaces), when the policy protects paths inside
//     a writable tree (.git/config, .git/hooks, .mcp.json ...: Landlock can
//     only grant, so read-only bind mounts carve them out) or when the
//     command must die with the process that ran it (an editor terminal
//     kills only the process it started: the helper is the namespace's
//     PID 1, and when it dies the kernel kills everything in it). The helper
//     applies the same thread restrictions and then starts the command.
//
// Check reports, once per process, what this kernel can enforce. A policy
// the kernel cannot enforce is an error, never a silent pass: the caller
// then runs nothing (it asks the user instead).
//
// The package knows nothing of the agent: no permission modes, no hooks, no
// settings files. cmd/cordis turns settings into a Policy; internal/proc
// starts every confined process through Start.
//
// Concurrency: Check and Start are safe for concurrent use; a Policy is a
// value and is not changed by Start.
package sandbox
