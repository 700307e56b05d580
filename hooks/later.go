package hooks

import "context"

// Later is a session's mailbox for hooks that work on after their seam
// call returned: Claude Code's `async` and `asyncRewake` command hooks and
// Codex's `async` ones. The loop sets it on every Input (Input.Later); a
// hook that starts background work runs it through Go, so that the session
// owns it, and hands what it found to Deliver.
//
// Implementations are safe for concurrent use.
type Later interface {
	// Go runs work on a goroutine the session owns: ctx is cancelled when
	// the session closes, and closing waits for work to return (a process
	// work started must be gone by then). It reports false, and does not
	// run work, once the session is closing.
	Go(work func(ctx context.Context)) bool
	// Deliver hands over what a background hook said. Its Context reaches
	// the model with the session's next model request (in the middle of
	// a running turn, after the tool results; otherwise with the next
	// prompt), each as a system reminder, in delivery order. It is called
	// from work started by Go.
	Deliver(LateResult)
}

// LateResult is what a background hook left for the session.
type LateResult struct {
	// Event is the seam the hook ran for, and Hook names it ("claude
	// hook `./test.sh` (.claude/settings.json)") in the log and messages.
	Event Event
	Hook  string
	// Context is text for the model, in order.
	Context []string
	// Wake asks for the model's attention now (Claude Code's asyncRewake
	// hook that exited 2). An ACP agent cannot start a turn on its own:
	// the user is told when the session is idle, and Context waits for
	// the next request like any other.
	Wake bool
	// Failure says why the hook gave nothing (it timed out, was killed,
	// its output was not valid): recorded, never shown to the model.
	Failure string
}
