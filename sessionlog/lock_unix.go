//go:build unix

package sessionlog

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// lockWait is how long lockFile waits for a lock held elsewhere: a process
// killed a moment ago (an editor restarting its agent) holds its lock
// until the kernel has closed its files.
const lockWait = time.Second

// lockFile takes an exclusive advisory lock (flock) on f, waiting at most
// lockWait. The lock belongs to the open file description, so it is
// released when the Writer closes the file or the process dies, however
// it dies.
func lockFile(f *os.File) error {
	deadline := time.Now().Add(lockWait)
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, unix.EINTR):
			continue
		case !errors.Is(err, unix.EWOULDBLOCK):
			return err
		case time.Now().After(deadline):
			return ErrLocked
		}
		time.Sleep(20 * time.Millisecond)
	}
}
