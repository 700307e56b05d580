package proc

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync/atomic"
	"time"
)

// Process is a long-lived command started by Start: a server the caller
// talks to over its standard input and output (an MCP stdio server, for
// example). It runs in its own process group; Stop ends the whole group.
type Process struct {
	cmd    *exec.Cmd
	cancel context.CancelFunc
	pgid   int
	stdin  *os.File
	stdout *os.File
	stderr *Buffer
	errR   *pipeReader
	grace  time.Duration

	done    chan struct{} // closed once the leader has exited and been reaped
	waitErr error
	stopped atomic.Bool
}

// Start starts c as an owned, long-lived process group. Path, Args, Dir,
// Env, OutputLimit (for standard error) and Grace are used; Stdin, Timeout
// and SplitStderr are not: standard input and output are pipes the caller
// reads and writes through Stdin and Stdout, and standard error is captured
// (capped) for Stderr. The process never inherits the caller's stdout.
//
// The caller must call Stop, which returns once every process of the group
// has been killed (with the limits described in the package documentation).
func Start(c Cmd) (*Process, error) {
	limit := c.OutputLimit
	if limit <= 0 {
		limit = DefaultOutputLimit
	}
	grace := c.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	prepare()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, c.Path, c.Args...)
	cmd.Dir = c.Dir
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = c.EnvPolicy.Filter(env)
	var canceled atomic.Bool
	setGroup(cmd, &canceled)
	cmd.WaitDelay = grace

	inR, inW, err := os.Pipe()
	if err != nil {
		cancel()
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		cancel()
		closeAll(inR, inW)
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		cancel()
		closeAll(inR, inW, outR, outW)
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	startErr := startOwned(cmd, c.Sandbox)
	closeAll(inR, outW, errW)
	if startErr != nil {
		cancel()
		closeAll(inW, outR, errR)
		return nil, startErr
	}
	p := &Process{
		cmd: cmd, cancel: cancel, pgid: cmd.Process.Pid, stdin: inW, stdout: outR,
		stderr: NewBuffer(limit), grace: grace, done: make(chan struct{}),
	}
	p.errR = newPipeReader(errR, p.stderr)
	go p.errR.run()
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// Pid is the process id of the group leader (also the group id).
func (p *Process) Pid() int { return p.pgid }

// Stdin is the write end of the process's standard input.
func (p *Process) Stdin() io.WriteCloser { return p.stdin }

// Stdout is the read end of the process's standard output.
func (p *Process) Stdout() io.ReadCloser { return p.stdout }

// Stderr returns what the process wrote to standard error (capped). Once
// the leader has exited, it first waits, up to the grace period, for the
// rest of that output (a child still running may hold the pipe open).
func (p *Process) Stderr() string {
	select {
	case <-p.done:
		t := time.NewTimer(p.grace)
		select {
		case <-p.errR.done:
		case <-t.C:
		}
		t.Stop()
	default:
	}
	return p.stderr.String()
}

// Done is closed once the leader has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// ExitStatus describes how the leader ended ("exit status 3", "signal:
// killed"), or "" while it runs.
func (p *Process) ExitStatus() string {
	select {
	case <-p.done:
	default:
		return ""
	}
	if st := p.cmd.ProcessState; st != nil {
		return st.String()
	}
	if p.waitErr != nil {
		return p.waitErr.Error()
	}
	return "exited"
}

// Stop ends the group: it closes standard input, gives the leader wait to
// exit on its own, then signals the group (SIGTERM, and SIGKILL after the
// grace period), kills whatever is left of it and reaps it. Stop is
// idempotent; it returns once the group is gone.
func (p *Process) Stop(wait time.Duration) {
	if !p.stopped.CompareAndSwap(false, true) {
		<-p.done
		return
	}
	p.stdin.Close()
	if wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-p.done:
		case <-t.C:
		}
		t.Stop()
	}
	p.cancel() // SIGTERM to the group; exec kills the leader after WaitDelay
	<-p.done
	killGroup(p.pgid, p.grace)
	release(p.pgid)
	p.errR.finish(p.grace)
	p.stdout.Close()
}

// String names the process for messages.
func (p *Process) String() string {
	return fmt.Sprintf("%s (pid %d)", p.cmd.Path, p.pgid)
}
