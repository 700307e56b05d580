package proc

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"sync/atomic"
	"time"

	"github.com/cordis-agent/cordis/internal/sandbox"
)

// DefaultOutputLimit is the capture cap per stream when Cmd.OutputLimit is 0.
const DefaultOutputLimit = 30000

// DefaultGrace is how long a group gets between SIGTERM and SIGKILL when
// Cmd.Grace is 0.
const DefaultGrace = 2 * time.Second

// Cmd describes one command to run.
type Cmd struct {
	// Path is the program; it is looked up in PATH when it has no slash.
	Path string
	// Args are the arguments after the program name.
	Args []string
	// Dir is the working directory ("" is the caller's).
	Dir string
	// Env is the environment; nil inherits the caller's. Either way the
	// variables EnvPolicy hides (the providers' API keys) are removed.
	Env []string
	// EnvPolicy decides what of Env reaches the process (nil:
	// DefaultEnvPolicy).
	EnvPolicy *EnvPolicy
	// Stdin is written to the command's standard input, which is then
	// closed. nil connects standard input to /dev/null.
	Stdin []byte
	// SplitStderr captures standard error into Result.Stderr. When false,
	// standard error is interleaved with standard output in Result.Output.
	SplitStderr bool
	// OutputLimit caps each captured stream in bytes (0: DefaultOutputLimit).
	// The first and last halves are kept; the middle is replaced by a marker.
	OutputLimit int
	// Timeout bounds the run (0: none besides ctx).
	Timeout time.Duration
	// Grace is the delay between SIGTERM and SIGKILL on timeout or
	// cancellation (0: DefaultGrace).
	Grace time.Duration
	// Sandbox, when not nil, confines the command (internal/sandbox); a
	// policy that cannot be enforced here fails the start, and nothing
	// runs.
	Sandbox *sandbox.Policy
	// CancelGrace, when shorter than Grace, replaces it once ctx is
	// cancelled (not on timeout): a user waiting for a cancel to be
	// answered should not wait out a command that ignores SIGTERM.
	CancelGrace time.Duration
}

// Result is how a command ended.
type Result struct {
	// Output is the captured standard output (and standard error unless
	// SplitStderr), possibly with a truncation marker in the middle.
	Output string
	// Stderr is the captured standard error when SplitStderr is set.
	Stderr string
	// Omitted and StderrOmitted count the bytes dropped by the caps.
	Omitted, StderrOmitted int64
	// ExitCode is the exit status; -1 when the command was killed by a
	// signal or did not start.
	ExitCode int
	// Signal names the signal that ended the command ("SIGKILL"), if any.
	Signal string
	// TimedOut is set when Timeout expired and the group was killed.
	TimedOut bool
	// Canceled is set when ctx was done and the group was killed.
	Canceled bool
	// Err is set when the command could not be started.
	Err error
}

// Run starts c in its own process group, waits for it, kills whatever is left
// of the group and returns the outcome. It never returns before the group's
// processes are gone (see the package documentation for the limits of that
// guarantee on systems other than Linux).
func Run(ctx context.Context, c Cmd) Result {
	if err := ctx.Err(); err != nil {
		return Result{ExitCode: -1, Canceled: true, Err: err}
	}
	limit := c.OutputLimit
	if limit <= 0 {
		limit = DefaultOutputLimit
	}
	grace := c.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	var runCtx context.Context
	var cancel context.CancelFunc
	if c.Timeout > 0 {
		runCtx, cancel = context.WithTimeout(ctx, c.Timeout)
	} else {
		runCtx, cancel = context.WithCancel(ctx)
	}
	defer cancel()

	prepare()
	if c.Sandbox != nil && c.Sandbox.NeedsHelper() {
		// A confined command that needs the sandbox's helper is handed to
		// one started ahead of it, when one is ready (warm_linux.go).
		if res, ok := runWarm(ctx, runCtx, c, limit, grace); ok {
			return res
		}
	}

	cmd := exec.CommandContext(runCtx, c.Path, c.Args...)
	cmd.Dir = c.Dir
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = c.EnvPolicy.Filter(env)
	if c.Stdin != nil {
		cmd.Stdin = bytes.NewReader(c.Stdin)
	}
	var canceled atomic.Bool
	setGroup(cmd, &canceled)
	cmd.WaitDelay = grace

	// The pipes are *os.File values, so exec copies nothing itself and Wait
	// returns as soon as the shell exits; the group is then killed, which
	// closes the write ends held by any leftover process.
	out := NewBuffer(limit)
	errBuf := NewBuffer(limit)
	var readers []*pipeReader
	outR, outW, err := os.Pipe()
	if err != nil {
		return Result{ExitCode: -1, Err: err}
	}
	cmd.Stdout, cmd.Stderr = outW, outW
	writers := []*os.File{outW}
	readers = append(readers, newPipeReader(outR, out))
	if c.SplitStderr {
		errR, errW, err := os.Pipe()
		if err != nil {
			outR.Close()
			outW.Close()
			return Result{ExitCode: -1, Err: err}
		}
		cmd.Stderr = errW
		writers = append(writers, errW)
		readers = append(readers, newPipeReader(errR, errBuf))
	}

	startErr := startOwned(cmd, c.Sandbox)
	for _, w := range writers {
		w.Close()
	}
	if startErr != nil {
		for _, r := range readers {
			r.f.Close()
		}
		return Result{ExitCode: -1, Err: startErr}
	}
	for _, r := range readers {
		go r.run()
	}
	pgid := cmd.Process.Pid

	exited := make(chan struct{})
	if c.CancelGrace > 0 && c.CancelGrace < grace {
		stop := context.AfterFunc(ctx, func() { killLeaderAfter(cmd, c.CancelGrace, exited) })
		defer stop()
	}
	waitErr := cmd.Wait()
	close(exited)
	killGroup(pgid, grace)
	release(pgid)
	for _, r := range readers {
		r.finish(grace)
	}

	return result(ctx, out, errBuf, canceled.Load(), cmd.ProcessState, waitErr)
}

// result is how a command ended: its captured output, whether it was
// killed for ctx (cancelled) or for its own timeout, and its status.
func result(ctx context.Context, out, errBuf *Buffer, canceled bool, st *os.ProcessState, waitErr error) Result {
	res := Result{
		Output:        out.String(),
		Omitted:       out.Omitted(),
		Stderr:        errBuf.String(),
		StderrOmitted: errBuf.Omitted(),
		ExitCode:      -1,
	}
	if canceled {
		if ctx.Err() != nil {
			res.Canceled = true
		} else {
			res.TimedOut = true
		}
	}
	if st != nil {
		res.ExitCode = st.ExitCode()
		res.Signal = signalName(st)
	} else if waitErr != nil {
		res.Err = waitErr
	}
	return res
}

// killLeaderAfter kills the leader once d has passed unless it exited
// first; Wait then returns and the group is killed with it. os.Process
// never signals a process other than the one it started.
func killLeaderAfter(cmd *exec.Cmd, d time.Duration, exited <-chan struct{}) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		_ = cmd.Process.Kill()
	case <-exited:
	}
}

type pipeReader struct {
	f    *os.File
	w    io.Writer
	done chan struct{}
}

func newPipeReader(f *os.File, w io.Writer) *pipeReader {
	return &pipeReader{f: f, w: w, done: make(chan struct{})}
}

func (r *pipeReader) run() {
	defer close(r.done)
	_, _ = io.Copy(r.w, r.f)
}

// finish waits for EOF, which comes once every holder of the write end is
// gone. A process that left the group (setsid) may keep it open; after the
// grace period the read end is closed instead.
func (r *pipeReader) finish(grace time.Duration) {
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-r.done:
	case <-t.C:
		r.f.Close()
		<-r.done
	}
	r.f.Close()
}
