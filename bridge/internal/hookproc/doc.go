// Package hookproc runs hook commands for the dialect bridges
// (bridge/claude, bridge/codex) as owned subprocesses (DESIGN decision 8).
//
// One Command is a command string run through a shell argv (Claude: `sh -c`,
// see Sh; Codex: `$SHELL -lc`, see LoginShell) in a working directory, in
// its own process group. Its standard input is the hook's JSON input, then
// closed; its environment is the agent's plus extra variables; its standard
// output and standard error are captured into buffers capped at
// OutputLimit bytes each (head and tail are kept around a marker; what was
// cut is counted in Result.StdoutOmitted / StderrOmitted). It never inherits the agent's
// stdout, which carries the JSON-RPC protocol.
//
//	res := hookproc.Run(ctx, hookproc.Command{
//		Shell:   hookproc.Sh,
//		Command: "python3 .claude/hooks/check.py",
//		Dir:     cwd,
//		Env:     []string{"CLAUDE_PROJECT_DIR=" + cwd},
//		Stdin:   inputJSON,
//		Timeout: 600 * time.Second,
//	})
//	switch {
//	case res.Err != nil, res.TimedOut, res.Canceled, res.Signal != "":
//		// no decision: log res.Failure()
//	default:
//		// res.ExitCode, res.Stdout, res.Stderr
//	}
//
// Processes are run by internal/proc, the runner the Bash tool uses: a
// timeout sends SIGTERM to the whole group and, after Grace, SIGKILL; the
// cancellation of ctx does the same with at most CancelGrace between the
// two, so that a cancelled turn is answered promptly whatever a hook does.
// When Run returns, every process of the group is gone, including
// processes the command left behind (`sleep 100 &`).
//
// RunAll runs several commands at once and returns their results in the
// order they were given (configuration order, never completion order),
// optionally running identical commands once.
//
// Concurrency: Run and RunAll are safe for concurrent use; each call owns
// its process groups and buffers. A Result is a plain value.
package hookproc
