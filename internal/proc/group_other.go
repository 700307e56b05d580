//go:build !unix

package proc

import (
	"os"
	"os/exec"
	"sync/atomic"
	"time"
)

// setGroup has no process groups to use here: cancellation kills the
// command itself.
func setGroup(cmd *exec.Cmd, canceled *atomic.Bool) {
	cmd.Cancel = func() error {
		canceled.Store(true)
		return cmd.Process.Kill()
	}
}

func prepare() {}

func killGroup(int, time.Duration) {}

func signalName(*os.ProcessState) string { return "" }
