//go:build !unix

package acptest

import (
	"os"
	"os/exec"
)

func ownGroup(cmd *exec.Cmd) {}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}

func exitStatus(ps *os.ProcessState) (code *int, signal *string) {
	c := ps.ExitCode()
	return &c, nil
}
