//go:build !linux

package sandbox

import (
	"errors"
	"os/exec"
)

// Status is what this system can enforce: nothing, outside Linux.
type Status struct {
	ABI     int
	Seccomp bool
	Problem string
}

// Namespaces is false: the helper needs Linux.
func (s Status) Namespaces() bool { return false }

func (s Status) Available() bool { return false }
func (s Status) String() string  { return "unavailable: " + s.Problem }

// CanConfineWrites is false: nothing can be confined here.
func (s Status) CanConfineWrites() bool { return false }

// OffVariable is the switch Linux has; here the sandbox is always off.
const OffVariable = "CORDIS_SANDBOX"

// Check reports that no sandbox exists on this system.
func Check() Status { return Status{Problem: "cordis's sandbox needs Linux (Landlock)"} }

var errUnavailable = errors.New("sandbox unavailable: cordis's sandbox needs Linux (Landlock)")

// Start refuses: nothing runs unconfined in the name of a policy.
func Start(cmd *exec.Cmd, p *Policy, start func() error) error { return errUnavailable }

// Command refuses, as Start does.
func Command(p *Policy, path string, args ...string) (string, []string, error) {
	return "", nil, errUnavailable
}

// Main is never reached outside Linux.
func Main(verb string, args []string) int {
	println(UnenforcedPrefix + errUnavailable.Error())
	return ExitUnenforced
}
