package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// Command returns the command line that runs path with args confined by p
// through the helper, for a process cordis does not start itself (an
// editor terminal runs it). The helper puts the command in namespaces of
// its own and dies with it: when the terminal's process is killed, nothing
// the command started survives. It fails where the policy cannot be
// enforced here.
func Command(p *Policy, path string, args ...string) (string, []string, error) {
	q := p.Clone()
	// Where user namespaces are refused, a policy that needs no mounts
	// still runs confined, without the PID namespace that makes it die
	// with the terminal's process.
	q.DieWithParent = Check().Namespaces() || len(q.Protect) > 0
	if err := Check().usable(q); err != nil {
		return "", nil, err
	}
	policy, err := q.encode()
	if err != nil {
		return "", nil, err
	}
	self, err := helperPath()
	if err != nil {
		return "", nil, err
	}
	return self, append([]string{HelperVerb, policy, "--", path}, args...), nil
}

// helperPath is the running cordis binary, as a path another process can
// start (an editor terminal cannot use /proc/self/exe).
var helperPath = sync.OnceValues(func() (string, error) {
	p, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("sandbox: cannot find the cordis binary for the helper: %w", err)
	}
	return p, nil
})

// Main is the helper; cmd/cordis calls it, before anything else, when its
// first argument is HelperVerb or innerVerb (args are the rest), and exits
// with what it returns.
//
// The outer stage (HelperVerb, started by an editor terminal) starts the
// inner stage in new namespaces with a parent-death signal, forwards
// signals to it and exits as it does. The inner stage (started by the
// outer one, or directly by Start) is the first process of its PID
// namespace: it mounts the protected paths read-only, restricts a thread,
// starts the command from it, reaps every orphan and exits with the
// command's status; its exit kills whatever the command left running.
func Main(verb string, args []string) int {
	switch verb {
	case warmVerb:
		return warmMain()
	case warmOuterVerb:
		return warmOuterMain()
	}
	if len(args) < 3 || args[1] != "--" {
		return fail(errors.New("usage: cordis " + HelperVerb + " POLICY -- PROGRAM [ARG...]"))
	}
	p, err := decodePolicy(args[0])
	if err != nil {
		return fail(err)
	}
	switch verb {
	case HelperVerb:
		return outer(p, args)
	case innerVerb:
		return inner(p, args[2], args[3:])
	}
	return fail(errors.New("unknown helper stage " + verb))
}

func fail(err error) int {
	fmt.Fprintln(os.Stderr, UnenforcedPrefix+err.Error())
	return ExitUnenforced
}

// outer starts the inner stage and mirrors it; for a policy that needs
// no namespaces it confines and starts the command itself.
func outer(p *Policy, args []string) int {
	if !p.needsHelper() {
		return confineAndWait(p, args[2], args[3:])
	}
	cmd := exec.Command("/proc/self/exe", append([]string{innerVerb}, args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	return mirror(cmd, nil)
}

// mirror starts cmd (a later stage of the helper) in new namespaces, to
// die with this process, with extra as its fd 3 when not nil; forwards
// this process's signals to it and exits as it does.
func mirror(cmd *exec.Cmd, extra *os.File) int {
	runtime.LockOSThread() // the parent-death signal follows this thread
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	setNamespaces(cmd.SysProcAttr)
	if extra != nil {
		cmd.ExtraFiles = []*os.File{extra}
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	if err := cmd.Start(); err != nil {
		return fail(fmt.Errorf("cannot start the confined command: %w", err))
	}
	if extra != nil {
		extra.Close()
	}
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	_ = cmd.Wait()
	return exitStatus(cmd.ProcessState)
}

// inner confines and runs the command as the namespace's first process.
func inner(p *Policy, path string, args []string) int {
	return runAsFirstProcess(p, path, args, func(cmd *exec.Cmd) {
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	})
}

// runAsFirstProcess makes the policy's mounts, confines and starts the
// command (set up by setup), reaps every orphan of the namespace and
// returns the command's exit status; this process's exit then ends the
// namespace and whatever the command left in it.
func runAsFirstProcess(p *Policy, path string, args []string, setup func(*exec.Cmd)) int {
	if err := ownNamespaces(); err != nil {
		return fail(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		return fail(err)
	}
	if err := mountProtections(p); err != nil {
		return fail(err)
	}
	// The working directory still points into the mount it was entered
	// on, under the new ones: enter it again through them.
	if err := os.Chdir(wd); err != nil {
		return fail(err)
	}
	// A signal to the helper is for the whole command: every process of
	// the namespace but this one.
	cmd, failed := startConfined(p, path, args, setup, nil, func(_ *exec.Cmd, sig syscall.Signal) { _ = syscall.Kill(-1, sig) })
	if cmd == nil {
		return failed
	}
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return fail(fmt.Errorf("wait: %w", err))
		}
		if pid == cmd.Process.Pid {
			if ws.Signaled() {
				return 128 + int(ws.Signal())
			}
			return ws.ExitStatus()
		}
	}
}

// ownNamespaces refuses to go on unless this process is the first of a
// PID namespace and has a mount namespace of its own: the mounts that
// follow would otherwise change the caller's view of the filesystem
// (someone running the helper's inner stage by hand, as root).
func ownNamespaces() error {
	if os.Getpid() != 1 {
		return errors.New("the helper's inner stage runs only as the first process of its own namespaces")
	}
	mine, err1 := os.Readlink("/proc/self/ns/mnt")
	// /proc is the procfs of the namespace cordis runs in: its 1 is
	// that namespace's first process, not this one.
	theirs, err2 := os.Readlink("/proc/1/ns/mnt")
	if err1 != nil || err2 == nil && mine == theirs {
		return errors.New("the helper's inner stage found no mount namespace of its own")
	}
	return nil
}

// confineAndWait runs the command on a restricted thread and waits for
// it, forwarding signals to its process group.
func confineAndWait(p *Policy, path string, args []string) int {
	std := func(cmd *exec.Cmd) { cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr }
	cmd, failed := startConfined(p, path, args, std, &syscall.SysProcAttr{Setpgid: true}, func(cmd *exec.Cmd, sig syscall.Signal) {
		_ = syscall.Kill(-cmd.Process.Pid, sig)
	})
	if cmd == nil {
		return failed
	}
	_ = cmd.Wait()
	return exitStatus(cmd.ProcessState)
}

// startConfined starts the command confined by p, set up by setup
// (streams, environment, folder), and hands the termination signals the
// helper gets to forward. It returns the started command, or nil and the
// helper's exit status when nothing could start.
func startConfined(p *Policy, path string, args []string, setup func(*exec.Cmd), attr *syscall.SysProcAttr, forward func(*exec.Cmd, syscall.Signal)) (*exec.Cmd, int) {
	r, err := prepare(p)
	if err != nil {
		return nil, fail(err)
	}
	cmd := exec.Command(path, args...) // a bare name is looked up in PATH
	setup(cmd)
	cmd.SysProcAttr = attr
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	err = onFreshThread(r, cmd.Start)
	r.close()
	if err != nil {
		return nil, fail(err)
	}
	go func() {
		for s := range sigs {
			forward(cmd, s.(syscall.Signal))
		}
	}()
	return cmd, 0
}

// exitStatus is how the helper exits for a command that ended as st.
func exitStatus(st *os.ProcessState) int {
	if st == nil {
		return ExitUnenforced
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}

// mountProtections makes, in the helper's private mount namespace, the
// whole filesystem read-only except the policy's writable paths, and the
// protected paths inside them read-only again. Landlock already refuses
// writes outside; the read-only mounts add what Landlock does not cover
// (chmod, chown, timestamps, extended attributes) and carve the protected
// paths out of the writable trees, which Landlock rules cannot do.
func mountProtections(p *Policy) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	writable := resolveAll(p.Write)
	for _, w := range writable {
		if err := unix.Mount(w, w, "", unix.MS_BIND|unix.MS_REC, ""); err != nil && !errors.Is(err, unix.ENOENT) {
			return fmt.Errorf("bind %s: %w", w, err)
		}
	}
	if err := setReadOnly("/", true, unix.AT_RECURSIVE); err != nil {
		return fmt.Errorf("read-only root: %w", err)
	}
	for _, w := range writable {
		if err := setReadOnly(w, false, 0); err != nil && !errors.Is(err, unix.ENOENT) {
			return fmt.Errorf("writable %s: %w", w, err)
		}
	}
	for _, path := range p.Protect {
		// A symlink is protected as itself, not where it points: its
		// target may be anywhere, and the link is what the project names.
		if _, err := os.Lstat(path); err != nil {
			continue
		}
		if info, _ := os.Lstat(path); info.Mode()&os.ModeSymlink != 0 {
			path = filepath.Dir(path) // cannot mount on a link: keep its directory read-only
		}
		if err := unix.Mount(path, path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("protect %s: %w", path, err)
		}
		if err := setReadOnly(path, true, unix.AT_RECURSIVE); err != nil {
			return fmt.Errorf("protect %s: %w", path, err)
		}
	}
	return nil
}

func setReadOnly(path string, ro bool, flags uint) error {
	attr := &unix.MountAttr{}
	if ro {
		attr.Attr_set = unix.MOUNT_ATTR_RDONLY
	} else {
		attr.Attr_clr = unix.MOUNT_ATTR_RDONLY
	}
	return unix.MountSetattr(unix.AT_FDCWD, path, flags|unix.AT_SYMLINK_NOFOLLOW, attr)
}
