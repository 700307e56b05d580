//go:build unix

package main

import (
	"context"
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// watchStdoutClosed waits, on its own goroutine, for the reader of f to go
// away, then cancels. Only pipes and sockets are watched: a terminal or a
// file has no reader to lose.
func watchStdoutClosed(ctx context.Context, f *os.File, cancel context.CancelFunc) {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return
	}
	fd := int32(f.Fd())
	go func() {
		fds := []unix.PollFd{{Fd: fd, Events: 0}} // POLLERR and POLLHUP are always reported
		for ctx.Err() == nil {
			_, err := unix.Poll(fds, 1000)
			if err != nil && !errors.Is(err, unix.EINTR) {
				return
			}
			if fds[0].Revents&(unix.POLLERR|unix.POLLHUP|unix.POLLNVAL) != 0 {
				cancel()
				return
			}
		}
	}()
}
