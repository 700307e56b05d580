package hookproc

import (
	"errors"
	"sync"
	"syscall"
	"time"
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER from <linux/prctl.h>.
const prSetChildSubreaper = 36

// subreaper makes this process a child subreaper, once, so that members of
// a hook's group orphaned by the shell's death are re-parented here and
// can be reaped (loop/tools/proc does the same for its groups).
var subreaper = sync.OnceValue(func() bool {
	_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	return errno == 0
})

func prepare() { subreaper() }

// killGroup sends SIGKILL to every process of the group and reaps the
// members re-parented to this process (wait4 on this group only), until
// the group no longer exists or limit has passed.
func killGroup(pgid int, limit time.Duration) {
	deadline := time.Now().Add(limit)
	delay := time.Millisecond
	for {
		if errors.Is(syscall.Kill(-pgid, syscall.SIGKILL), syscall.ESRCH) {
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
