package proc

import (
	"errors"
	"sync"
	"syscall"
	"time"
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER from <linux/prctl.h>.
const prSetChildSubreaper = 36

// subreaper reports whether this process is a child subreaper; it is set
// on the first Run.
var subreaper = sync.OnceValue(func() bool {
	_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	return errno == 0
})

func prepare() { subreaper() }

// killGroup sends SIGKILL to every process of the group and, as a
// subreaper, reaps the members re-parented to this process, until the group
// no longer exists (bounded by limit, in case a member is stuck in the
// kernel).
func killGroup(pgid int, limit time.Duration) {
	deadline := time.Now().Add(limit)
	delay := time.Millisecond
	for {
		err := syscall.Kill(-pgid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return
		}
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-pgid, &ws, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
		if errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) {
			return
		}
		if !subreaper() || time.Now().After(deadline) {
			return
		}
		time.Sleep(delay)
		delay = min(2*delay, 20*time.Millisecond)
	}
}
