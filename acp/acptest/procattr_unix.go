//go:build unix

package acptest

import (
	"os"
	"os/exec"
	"syscall"
)

// ownGroup puts the command in its own process group, so killGroup stops
// everything it started.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

var signalNames = map[syscall.Signal]string{
	syscall.SIGKILL: "SIGKILL", syscall.SIGTERM: "SIGTERM", syscall.SIGINT: "SIGINT",
	syscall.SIGHUP: "SIGHUP", syscall.SIGPIPE: "SIGPIPE", syscall.SIGQUIT: "SIGQUIT",
}

func exitStatus(ps *os.ProcessState) (code *int, signal *string) {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		name, ok := signalNames[ws.Signal()]
		if !ok {
			name = ws.Signal().String()
		}
		return nil, &name
	}
	c := ps.ExitCode()
	return &c, nil
}
