package hookproc

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/cordis-agent/cordis/internal/secrets"

	"github.com/cordis-agent/cordis/internal/proc"
)

// DefaultOutputLimit is the per-stream capture cap when Command.OutputLimit
// is 0.
const DefaultOutputLimit = 1 << 20

// DefaultGrace is the delay between SIGTERM and SIGKILL when Command.Grace
// is 0.
const DefaultGrace = 2 * time.Second

// CancelGrace replaces the grace once the hook's context is cancelled (a
// cancelled turn, cordis exiting): a hook that ignores SIGTERM is killed
// this soon, so that a cancel is answered within a second whatever runs.
const CancelGrace = 250 * time.Millisecond

// Sh is Claude Code's shell: the command string is run by `sh -c`.
var Sh = []string{"sh", "-c"}

// LoginShell returns Codex's shell argv: `$SHELL -lc`, or `/bin/sh -lc`
// when SHELL is unset or empty.
func LoginShell() []string {
	sh := os.Getenv("SHELL")
	if sh == "" {
		sh = "/bin/sh"
	}
	return []string{sh, "-lc"}
}

// Command is one hook command to run.
type Command struct {
	// Shell is the argv the command string is appended to, e.g. Sh. Its
	// first element is looked up in PATH when it has no slash. Empty
	// means Sh.
	Shell []string
	// Command is the command string, passed as the last argument.
	Command string
	// Exec, when non-empty, is the whole argv to run instead of Shell and
	// Command (Claude's exec form: `command` with `args`, no shell).
	Exec []string
	// Dir is the working directory ("" is the agent's).
	Dir string
	// Env holds extra "NAME=value" variables, added to the inherited
	// environment (BaseEnv); they win over inherited ones of the same name.
	Env []string
	// BaseEnv replaces the inherited environment when non-nil (nil:
	// cordis's environment as EnvPolicy lets it through).
	BaseEnv []string
	// EnvPolicy decides what of cordis's environment the command inherits
	// (nil: proc.DefaultEnvPolicy, which hides the provider keys).
	EnvPolicy *proc.EnvPolicy
	// Stdin is written to the command's standard input, which is then
	// closed (nil or empty: closed at once).
	Stdin []byte
	// Timeout bounds the run (0: none besides ctx).
	Timeout time.Duration
	// OutputLimit caps each captured stream in bytes (0:
	// DefaultOutputLimit). The head is kept.
	OutputLimit int
	// Grace is the delay between SIGTERM and SIGKILL on timeout or
	// cancellation (0: DefaultGrace).
	Grace time.Duration
}

// Argv is the full argv Run executes: Exec, or Shell followed by Command.
func (c Command) Argv() []string {
	if len(c.Exec) > 0 {
		return append([]string(nil), c.Exec...)
	}
	sh := c.Shell
	if len(sh) == 0 {
		sh = Sh
	}
	return append(append([]string(nil), sh...), c.Command)
}

// Result is how a command ended.
type Result struct {
	// Stdout and Stderr are the captured streams, at most OutputLimit
	// bytes each (the head).
	Stdout, Stderr string
	// StdoutOmitted and StderrOmitted count the bytes dropped by the cap;
	// non-zero means the stream was truncated.
	StdoutOmitted, StderrOmitted int64
	// ExitCode is the exit status, or -1 when the command was killed by a
	// signal or did not start.
	ExitCode int
	// Signal names the signal that ended the command ("SIGKILL"), if any.
	Signal string
	// TimedOut is set when Timeout expired and the group was killed.
	TimedOut bool
	// Canceled is set when ctx was done and the group was killed.
	Canceled bool
	// Err is set when the command could not be started (for example the
	// shell does not exist) or when ctx was done before it started.
	Err error
	// Duration is the wall time from start to the group's end.
	Duration time.Duration
	// Timeout is the limit the command ran under (0: none), so messages
	// can name the configured limit rather than a measured time.
	Timeout time.Duration
	// Duplicate is set by RunAll (with dedup) on the result of a command
	// identical to an earlier one, which ran once: the fields above are a
	// copy of the result at index DuplicateOf.
	Duplicate   bool
	DuplicateOf int
}

// Exited reports whether the command ran and exited on its own (not
// killed, timed out, cancelled or unable to start), so that ExitCode is
// its verdict.
func (r Result) Exited() bool {
	return r.Err == nil && !r.TimedOut && !r.Canceled && r.Signal == "" && r.ExitCode >= 0
}

// Failure describes, for a log line, why the command gave no verdict:
// "timed out after 5s", "cancelled", "killed by SIGKILL", "could not
// start: ...". It is "" when Exited.
func (r Result) Failure() string {
	switch {
	case r.TimedOut:
		return fmt.Sprintf("timed out after %s", r.Timeout)
	case r.Canceled:
		return "cancelled"
	case r.Err != nil:
		return "could not start: " + r.Err.Error()
	case r.Signal != "":
		return "killed by " + r.Signal
	case r.ExitCode < 0:
		return "did not exit normally"
	}
	return ""
}

// NotRun says why the hook's own program never got to a verdict: it could
// not start, the shell could not find or execute it (exit status 127, what
// Claude Code calls a hook that cannot start, or 126), it was killed by a
// signal (reported by Run, or by the shell as 128+N) or it timed out.
// It is "" when the program ran to an exit of its own, and when ctx was
// cancelled: then nobody waits for the verdict any more.
func (r Result) NotRun() string {
	switch {
	case r.Canceled:
		return ""
	case !r.Exited():
		return r.Failure()
	case r.ExitCode == 127:
		return "its program was not found (exit status 127)"
	case r.ExitCode == 126:
		return "its program could not be executed (exit status 126)"
	case r.ExitCode > 128 && r.ExitCode < 128+32:
		return fmt.Sprintf("killed by signal %d (exit status %d)", r.ExitCode-128, r.ExitCode)
	}
	return ""
}

// Run starts c in its own process group (through internal/proc, which
// also runs the Bash tool), waits for it, kills whatever is left of the
// group and returns the outcome. It returns once the group's processes are
// gone.
func Run(ctx context.Context, c Command) Result {
	start := time.Now()
	base := c.BaseEnv
	if base == nil {
		base = c.EnvPolicy.Environ()
	}
	// A provider key a command printed never reaches a hook's input.
	stdin := secrets.Scrub(c.Stdin)
	if stdin == nil {
		stdin = []byte{} // closed at once rather than /dev/null: hooks read stdin
	}
	limit := c.OutputLimit
	if limit <= 0 {
		limit = DefaultOutputLimit
	}
	grace := c.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	argv := c.Argv()
	r := proc.Run(ctx, proc.Cmd{
		Path: argv[0], Args: argv[1:], Dir: c.Dir,
		Env:         append(append([]string(nil), base...), c.Env...),
		EnvPolicy:   c.EnvPolicy,
		Stdin:       stdin,
		SplitStderr: true,
		OutputLimit: limit,
		Timeout:     c.Timeout,
		Grace:       grace,
		CancelGrace: CancelGrace,
	})
	res := Result{
		Stdout: r.Output, StdoutOmitted: r.Omitted,
		Stderr: r.Stderr, StderrOmitted: r.StderrOmitted,
		ExitCode: r.ExitCode, Signal: r.Signal,
		TimedOut: r.TimedOut, Canceled: r.Canceled, Err: r.Err,
		Duration: time.Since(start),
	}
	if r.TimedOut {
		res.Timeout = c.Timeout
	}
	return res
}

// maxParallel bounds how many commands one RunAll call runs at once: four
// per CPU, at most 32. Hooks are short processes that mostly wait (on
// I/O, on their own children), so a few per CPU keep the machine busy;
// each running hook holds a process and about half a dozen descriptors
// (its three pipes, a pidfd), so 32 keep even thousands of matching hooks,
// in several sessions at once, far below the usual 1024-descriptor soft
// limit and the user's process limit. Unbounded, 3,000 matching hooks
// starved a guard until its timeout expired and 10,000 ran out of
// descriptors. A handful of matching hooks, the usual case, never waits.
// A variable so that tests can lower it.
var maxParallel = min(4*runtime.GOMAXPROCS(0), 32)

// RunAll runs cmds concurrently, at most maxParallel at a time, starting
// them in the order of cmds, and returns their results in that order:
// results[i] is cmds[i]'s, whatever order they finished in. A command's
// Timeout counts from its own start, not from when it was queued, so
// waiting for a free slot never times a hook out. Once ctx is done, the
// commands still queued are not started (their results are Canceled, with
// Err set) and the running ones are killed. With dedup, a command
// identical to an earlier one (same Argv, Dir, Env, BaseEnv and Stdin;
// Timeout, OutputLimit and Grace are those of the first) runs once, and
// its result is marked Duplicate with DuplicateOf pointing at the first.
func RunAll(ctx context.Context, cmds []Command, dedup bool) []Result {
	results := make([]Result, len(cmds))
	first := make([]int, len(cmds))
	seen := map[string]int{}
	var unique []int
	for i, c := range cmds {
		first[i] = i
		if dedup {
			k := c.Key()
			if j, ok := seen[k]; ok {
				first[i] = j
				continue
			}
			seen[k] = i
		}
		unique = append(unique, i)
	}
	if len(unique) == 1 {
		results[unique[0]] = Run(ctx, cmds[unique[0]])
	} else {
		runBounded(ctx, cmds, unique, results)
	}
	for i, j := range first {
		if j != i {
			results[i] = results[j]
			results[i].Duplicate, results[i].DuplicateOf = true, j
		}
	}
	return results
}

// runBounded runs cmds[i] for each i of which, in that order, with at most
// maxParallel running, and stores each result in results[i].
func runBounded(ctx context.Context, cmds []Command, which []int, results []Result) {
	slots := make(chan struct{}, max(maxParallel, 1))
	var wg sync.WaitGroup
	for n, i := range which {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if err := ctx.Err(); err != nil {
			for _, j := range which[n:] {
				results[j] = Result{ExitCode: -1, Canceled: true, Err: err}
			}
			break
		}
		wg.Go(func() {
			defer func() { <-slots }()
			results[i] = Run(ctx, cmds[i])
		})
	}
	wg.Wait()
}

// Key identifies a command for deduplication: two commands with the same
// Key run the same program the same way.
func (c Command) Key() string {
	var b strings.Builder
	field := func(s string) {
		fmt.Fprintf(&b, "%d:%s", len(s), s)
	}
	list := func(l []string) {
		fmt.Fprintf(&b, "[%d]", len(l))
		for _, s := range l {
			field(s)
		}
	}
	list(c.Argv())
	field(c.Dir)
	list(c.Env)
	if c.BaseEnv == nil {
		b.WriteString("inherit")
	} else {
		list(c.BaseEnv)
	}
	field(string(c.Stdin))
	return b.String()
}
