//go:build unix && !linux

package proc

import (
	"syscall"
	"time"
)

func prepare() {}

// killGroup sends SIGKILL to every process of the group. Without a
// subreaper, orphaned members are reaped by init.
func killGroup(pgid int, _ time.Duration) {
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}
