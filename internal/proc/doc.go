// Package proc runs a command as an owned process group: its own group
// (Setpgid), a timeout, cancellation that signals the whole group (SIGTERM,
// then SIGKILL after a grace period), stdin from /dev/null unless input is
// given, and stdout/stderr captured into capped buffers that keep the head
// and the tail. The command never inherits the caller's stdout, which in
// cordis is the JSON-RPC channel (DESIGN decisions 1 and 8).
//
//	res := proc.Run(ctx, proc.Cmd{
//		Path:    "/bin/bash",
//		Args:    []string{"-c", "go test ./..."},
//		Dir:     cwd,
//		Timeout: 2 * time.Minute,
//	})
//	if res.TimedOut { ... }
//	fmt.Print(res.Output, "exit", res.ExitCode)
//
// When Run returns, every process of the group has been killed. Processes
// that the command left behind (for example `sleep 100 &`) are killed too:
// nothing outlives the call. On Linux, Run makes the calling process a child
// subreaper (prctl PR_SET_CHILD_SUBREAPER, once, on first use) so that group
// members orphaned by the shell's death are re-parented to it; Run then reaps
// them (wait4 on the group only, never on other children), so that the group
// is gone when it returns, even where PID 1 does not reap orphans. A
// consequence for the rest of the process: orphans of other subprocess trees
// are re-parented to it as well, so other code that starts process groups
// should run them through this package (or reap its own groups).
//
// A process group may outlive cordis only if cordis dies without running
// its own cleanup (SIGKILL, a crash): on Linux a watchdog, a small shell
// loop started with the first group, then kills every group still
// registered (watchdog_linux.go). The watchdog gets an environment of its
// own (PATH only), never cordis's: its /proc/<pid>/environ is readable by
// the user's other processes. Processes that left their group
// (setsid) are out of its reach in that case.
//
// A command with a Sandbox runs confined (internal/sandbox). One that needs
// the sandbox's helper is handed, on Linux, to a helper kept waiting: one
// is started as an owned group after the previous one was taken, and lives
// until it is used or cordis exits (warm_linux.go).
//
// Concurrency: Run is safe for concurrent use; each call owns its process
// group and its buffers.
package proc
