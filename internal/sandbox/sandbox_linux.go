package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Minimum Landlock ABIs: 1 handles reads, writes and execution (a
// read-only policy also refuses truncate(2) through seccomp); a writable
// policy needs 3, where renames across directories (2) and truncation (3)
// are handled, or a command could truncate any file it can name.
const (
	minABIReadOnly = 1
	minABIWrite    = 3
)

// Status is what this kernel can enforce.
type Status struct {
	// ABI is the Landlock ABI version (0: none).
	ABI int
	// Seccomp reports whether a seccomp filter can be installed.
	Seccomp bool
	// Problem says why the sandbox is unavailable ("" when it is).
	Problem string
}

// Available reports whether read-only policies can be enforced.
func (s Status) Available() bool { return s.Problem == "" }

// CanConfineWrites reports whether writable policies with protected
// paths (the workspace sandbox) can be enforced.
func (s Status) CanConfineWrites() bool {
	return s.Problem == "" && s.ABI >= minABIWrite && s.Namespaces()
}

// Namespaces reports whether the helper can make user, mount and PID
// namespaces (needed for Protect and DieWithParent). Probed once, on
// first use, by starting /bin/true in them (about 2 ms), so a session
// that never needs them never pays for it.
func (s Status) Namespaces() bool { return namespacesOK() }

var namespacesOK = sync.OnceValue(func() bool { return probeNamespaces() == nil })

// String describes the state for /doctor and the session start.
func (s Status) String() string {
	if s.Problem != "" {
		return "unavailable: " + s.Problem
	}
	ns := "namespaces available"
	if !s.Namespaces() {
		ns = "no user namespaces (protected paths and terminal confinement unavailable)"
	}
	return fmt.Sprintf("Landlock ABI %d, seccomp, %s", s.ABI, ns)
}

// OffVariable, set to "off" in cordis's environment, makes Check report
// the sandbox unavailable: what depends on it is then asked about (a
// switch for diagnosing a command the sandbox breaks, and the way tests
// see the fail-closed path).
const OffVariable = "CORDIS_SANDBOX"

var check = sync.OnceValue(func() Status {
	var s Status
	if os.Getenv(OffVariable) == "off" {
		s.Problem = "turned off by " + OffVariable + "=off"
		return s
	}
	abi, err := ll.LandlockGetABIVersion()
	if err != nil || abi < minABIReadOnly {
		s.Problem = "the kernel has no Landlock (needs Linux 5.13 or later with the landlock LSM enabled)"
		return s
	}
	s.ABI = abi
	if auditArch == 0 {
		s.Problem = "no seccomp filter for " + runtime.GOARCH
		return s
	}
	if err := unix.Prctl(unix.PR_GET_SECCOMP, 0, 0, 0, 0); err != nil {
		s.Problem = "the kernel has no seccomp: " + err.Error()
		return s
	}
	s.Seccomp = true
	return s
})

// Check reports what this kernel can enforce; it is computed once.
func Check() Status { return check() }

// usable returns why p cannot be enforced here, or nil.
func (s Status) usable(p *Policy) error {
	if s.Problem != "" {
		return errors.New("sandbox unavailable: " + s.Problem)
	}
	if !p.ReadOnly() && s.ABI < minABIWrite {
		return fmt.Errorf("sandbox unavailable: Landlock ABI %d cannot confine writes (needs ABI %d, Linux 6.2)", s.ABI, minABIWrite)
	}
	if p.ProxyPort != 0 && s.ABI < 4 {
		return fmt.Errorf("sandbox unavailable: Landlock ABI %d cannot limit TCP to the proxy (needs ABI 4, Linux 6.7)", s.ABI)
	}
	if p.needsHelper() && !s.Namespaces() {
		return errors.New("sandbox unavailable: user namespaces are not permitted here, and protecting files inside writable folders needs them")
	}
	return p.validate()
}

// Start starts cmd confined by p. cmd's SysProcAttr (process group,
// session) is kept. start is how cmd is started once the calling thread
// is ready (exec.Cmd.Start, wrapped by the caller's bookkeeping); it runs
// on a thread that is restricted and then discarded.
func Start(cmd *exec.Cmd, p *Policy, start func() error) error {
	if err := Check().usable(p); err != nil {
		return err
	}
	if p.needsHelper() {
		if err := wrapInHelper(cmd, p, helperStage()); err != nil {
			return err
		}
		return onFreshThread(nil, start)
	}
	r, err := prepare(p)
	if err != nil {
		return err
	}
	defer r.close()
	return onFreshThread(r, start)
}

// restrictions are a policy made ready for a thread: the Landlock ruleset
// and the seccomp program.
type restrictions struct {
	rulesetFD int
	flags     uint32
	filter    []unix.SockFilter
}

func prepare(p *Policy) (*restrictions, error) {
	filter, err := filterFor(p)
	if err != nil {
		return nil, err
	}
	fd, flags, err := rulesetFor(p, Check().ABI)
	if err != nil {
		return nil, err
	}
	return &restrictions{rulesetFD: fd, flags: flags, filter: filter}, nil
}

func (r *restrictions) close() { unix.Close(r.rulesetFD) }

// apply restricts the calling thread, which must be locked and never
// unlocked: every later fork from it inherits the restrictions.
func (r *restrictions) apply() error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if err := ll.LandlockRestrictSelf(r.rulesetFD, r.flags); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	if err := loadFilter(r.filter); err != nil {
		return fmt.Errorf("seccomp: %w", err)
	}
	return nil
}

// onFreshThread runs start on a new OS thread that first drops every
// capability from its bounding set (a root command keeps none it could
// regain through exec) and, when r is not nil, applies r. The thread is
// never unlocked, so the Go runtime discards it when the goroutine ends;
// new runtime threads are cloned from a clean template thread, never from
// a locked one, so nothing else in cordis inherits the restrictions.
func onFreshThread(r *restrictions, start func() error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
		dropBoundingSet()
		if r != nil {
			if err := r.apply(); err != nil {
				done <- err
				return
			}
		}
		done <- start()
	}()
	return <-done
}

// dropBoundingSet removes every capability the thread's children could
// gain at exec: the inheritable set (root's exec adds it back) and the
// bounding set. Without CAP_SETPCAP (an ordinary user) the bounding set
// cannot change, and such children hold no capability after exec anyway.
func dropBoundingSet() {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if unix.Capget(&hdr, &data[0]) == nil {
		data[0].Inheritable, data[1].Inheritable = 0, 0
		_ = unix.Capset(&hdr, &data[0])
	}
	for c := 0; c <= unix.CAP_LAST_CAP; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err == unix.EPERM {
			return
		}
	}
}

// wrapInHelper rewrites cmd to run through the helper: the cordis binary
// with verb, the policy and the original command line.
func wrapInHelper(cmd *exec.Cmd, p *Policy, verb string) error {
	policy, err := p.encode()
	if err != nil {
		return err
	}
	// The child of a fork is still this binary until it execs, so
	// /proc/self/exe names it even when the file was replaced since.
	const self = "/proc/self/exe"
	args := append([]string{self, verb, policy, "--", cmd.Path}, cmd.Args[1:]...)
	cmd.Path, cmd.Args = self, args
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// No parent-death signal here: it would fire when the thread that
	// forked ends, and that thread is discarded at once. cordis owns the
	// helper's process group (internal/proc, and its watchdog if cordis
	// dies); killing the helper kills the namespace's first process, and
	// with it the command and everything it started.
	if verb == innerVerb {
		setNamespaces(cmd.SysProcAttr)
	}
	return nil
}

// helperStage is the stage cordis starts the helper at. A process that
// is not dumpable (cordis makes itself so: internal/hardening) owns its
// /proc files only through root, so an ordinary user's cordis cannot
// write a child's uid_map before the child execs: it starts the outer
// stage, a fresh (dumpable) process, which makes the namespaces.
func helperStage() string {
	if os.Geteuid() != 0 {
		if d, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0); err == nil && d == 0 {
			return HelperVerb
		}
	}
	return innerVerb
}

// setNamespaces makes the child the first process of new user, mount and
// PID namespaces, mapped to the caller's own uid and gid (files keep their
// owners; nothing is gained outside).
func setNamespaces(a *syscall.SysProcAttr) {
	a.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID
	uid, gid := os.Getuid(), os.Getgid()
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	a.GidMappingsEnableSetgroups = false
	// An ordinary user's capabilities in the new namespace are lost at
	// exec; the helper needs CAP_SYS_ADMIN there to mount, and clears it
	// (with every other capability) before it starts the command.
	a.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN}
}

// probeNamespaces starts /bin/true in the namespaces the helper uses.
// probeNamespaces starts /bin/true the way Start would start a helper:
// in the namespaces directly, or through the outer stage (which needs
// this binary to dispatch HelperVerb to Main, as cordis does).
func probeNamespaces() error {
	if helperStage() == HelperVerb {
		cmd := exec.Command("/proc/self/exe", HelperVerb, `{"readAll":true,"dieWithParent":true}`, "--", "/bin/true")
		cmd.Env = []string{}
		return cmd.Run()
	}
	cmd := exec.Command("/bin/true")
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	setNamespaces(cmd.SysProcAttr)
	cmd.Env = []string{}
	return cmd.Run()
}
