//go:build unix

package hookproc

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"sync/atomic"
	"syscall"
)

// setGroup puts the command in its own process group and makes
// cancellation signal the whole group with SIGTERM; exec escalates to
// SIGKILL on the leader after WaitDelay, and killGroup finishes the rest.
func setGroup(cmd *exec.Cmd, killed *atomic.Bool) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		killed.Store(true)
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		if err != nil && !errors.Is(err, syscall.ESRCH) {
			return err
		}
		return nil
	}
}

func signalName(st *os.ProcessState) string {
	ws, ok := st.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return ""
	}
	switch sig := ws.Signal(); sig {
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	case syscall.SIGABRT:
		return "SIGABRT"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	case syscall.SIGTERM:
		return "SIGTERM"
	default:
		return "signal " + strconv.Itoa(int(sig))
	}
}
