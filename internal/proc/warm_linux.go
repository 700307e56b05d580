package proc

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cordis-agent/cordis/internal/sandbox"
)

// The sandbox's helper costs an exec of the cordis binary and the making
// of its namespaces, most of a confined command's start. So one is kept
// waiting: started (as an owned process group, which the watchdog covers)
// after the previous one was taken, it is handed the next command that
// needs it. A command finds none ready when two start at once, or at the
// first; it then waits for one started for it.
var warm struct {
	mu    sync.Mutex
	ready *sandbox.Warm
	// filling is set while a replacement starts.
	filling bool
}

// takeWarm returns a waiting helper, or nil where none can start, and
// starts the next.
func takeWarm() *sandbox.Warm {
	warm.mu.Lock()
	w := warm.ready
	warm.ready = nil
	warm.mu.Unlock()
	if w == nil {
		w = startWarm()
	}
	if w != nil {
		go refillWarm()
	}
	return w
}

func refillWarm() {
	warm.mu.Lock()
	if warm.ready != nil || warm.filling {
		warm.mu.Unlock()
		return
	}
	warm.filling = true
	warm.mu.Unlock()
	w := startWarm()
	warm.mu.Lock()
	warm.filling = false
	if warm.ready == nil {
		warm.ready, w = w, nil
	}
	warm.mu.Unlock()
	if w != nil { // another filled the slot meanwhile
		dropWarm(w)
	}
}

func startWarm() *sandbox.Warm {
	w, err := sandbox.NewWarm()
	if err != nil {
		return nil
	}
	err = startOwned(w.Cmd, nil)
	w.Started()
	if err != nil {
		w.Close()
		return nil
	}
	return w
}

// dropWarm gives up a waiting helper and reaps it.
func dropWarm(w *sandbox.Warm) {
	w.Close()
	pgid := w.Cmd.Process.Pid
	_ = w.Cmd.Wait()
	killGroup(pgid, DefaultGrace)
	release(pgid)
}

// runWarm is Run for a command a waiting helper runs. ok is false when
// none could be had (Run then starts the helper itself).
func runWarm(ctx, runCtx context.Context, c Cmd, limit int, grace time.Duration) (Result, bool) {
	path, err := exec.LookPath(c.Path)
	if err != nil {
		return Result{ExitCode: -1, Err: err}, true
	}
	w := takeWarm()
	if w == nil {
		return Result{}, false
	}
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	env = c.EnvPolicy.Filter(env)

	out, errBuf := NewBuffer(limit), NewBuffer(limit)
	outR, outW, err := os.Pipe()
	if err != nil {
		dropWarm(w)
		return Result{ExitCode: -1, Err: err}, true
	}
	files := []*os.File{outW}
	readers := []*pipeReader{newPipeReader(outR, out)}
	errW := outW
	if c.SplitStderr {
		var errR *os.File
		if errR, errW, err = os.Pipe(); err != nil {
			closeAll(outR, outW)
			dropWarm(w)
			return Result{ExitCode: -1, Err: err}, true
		}
		files = append(files, errW)
		readers = append(readers, newPipeReader(errR, errBuf))
	}
	stdin, err := os.Open(os.DevNull)
	if c.Stdin != nil {
		var inW *os.File
		if stdin, inW, err = os.Pipe(); err == nil {
			go func() {
				_, _ = io.Copy(inW, bytes.NewReader(c.Stdin))
				inW.Close()
			}()
		}
	}
	if err != nil {
		closeAll(files...)
		for _, r := range readers {
			r.f.Close()
		}
		dropWarm(w)
		return Result{ExitCode: -1, Err: err}, true
	}
	files = append(files, stdin)
	sendErr := w.Send(c.Sandbox, path, c.Args, env, c.Dir, stdin, outW, errW)
	closeAll(files...) // the helper holds its own copies
	pgid := w.Cmd.Process.Pid
	if sendErr != nil {
		// A helper that died while it waited, or a request it cannot
		// take: Run starts one for this command instead.
		for _, r := range readers {
			r.f.Close()
		}
		dropWarm(w)
		return Result{}, false
	}
	for _, r := range readers {
		go r.run()
	}

	// Cancellation and the timeout as exec.CommandContext gives them to
	// Run: SIGTERM to the group, SIGKILL to the helper (whose death ends
	// its namespace) after the grace period, shorter for a cancel.
	var canceled atomic.Bool
	exited := make(chan struct{})
	stop := context.AfterFunc(runCtx, func() {
		canceled.Store(true)
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		wait := grace
		if ctx.Err() != nil && c.CancelGrace > 0 && c.CancelGrace < grace {
			wait = c.CancelGrace
		}
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-t.C:
			_ = w.Cmd.Process.Kill()
		case <-exited:
		}
	})
	waitErr := w.Cmd.Wait()
	close(exited)
	stop()
	killGroup(pgid, grace)
	release(pgid)
	for _, r := range readers {
		r.finish(grace)
	}
	return result(ctx, out, errBuf, canceled.Load(), w.Cmd.ProcessState, waitErr), true
}
