package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// The editor can leave in several ways, and each must end cordis the same
// way stdin EOF does: the server is cancelled, running turns end and log
// their end, every subprocess is stopped, then cordis exits. SIGKILL is
// the one cordis cannot see; internal/proc's watchdog covers it.

// cancelOnSignal cancels the server on SIGINT, SIGTERM or SIGHUP (the
// terminal or the editor's session went away). Until it has installed the
// handler, a signal ends cordis at once, which is all there is to do that
// early. SIGPIPE is caught too, so that a write to a closed stdout returns
// EPIPE (and ends the server, see stdoutWatch) rather than killing cordis
// before it cleans up; a caught signal is not inherited by children as an
// ignored one would be.
func cancelOnSignal(ctx context.Context, cancel context.CancelFunc) {
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	for {
		select {
		case <-pipes:
		case <-sigs:
			cancel()
			return
		case <-ctx.Done():
			return
		}
	}
}

// stdoutWatch ends the server when the editor closes its end of stdout:
// a write then fails (EPIPE), and a pipe or socket with no reader reports
// an error condition to poll(2) even while cordis has nothing to write.
type stdoutWatch struct {
	w      io.Writer
	cancel context.CancelFunc
}

func (s stdoutWatch) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err != nil {
		s.cancel()
	}
	return n, err
}
