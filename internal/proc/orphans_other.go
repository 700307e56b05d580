//go:build !linux

package proc

import "os/exec"

func startOwned(cmd *exec.Cmd) error { return cmd.Start() }

func release(int) {}

// ReapOrphans does nothing here: only Linux lets cordis adopt (as a child
// subreaper) what a command leaves behind outside its process group.
func ReapOrphans() {}
