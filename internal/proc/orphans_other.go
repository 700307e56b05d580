//go:build !linux

package proc

import (
	"os/exec"

	"github.com/cordis-agent/cordis/internal/sandbox"
)

func startOwned(cmd *exec.Cmd, policy *sandbox.Policy) error {
	if policy != nil {
		return sandbox.Start(cmd, policy, cmd.Start) // refuses: no sandbox here
	}
	return cmd.Start()
}

func release(int) {}

// ReapOrphans does nothing here: only Linux lets cordis adopt (as a child
// subreaper) what a command leaves behind outside its process group.
func ReapOrphans() {}
