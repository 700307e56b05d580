package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// A warm helper is the helper started ahead of its command: already
// executed and initialised, already the first process of fresh user,
// mount and PID namespaces, waiting on a socket. The command, its policy
// and its standard streams arrive in one message; the helper then makes
// the policy's mounts (at that moment, so they see the files as they are
// now), confines a thread, starts the command and exits as it does,
// exactly as the cold helper (Start) would. What it saves is the exec and
// start-up of the cordis binary and the namespaces' creation, which come
// before the command is known. One helper serves one command.

const (
	// warmVerb is the waiting stage inside the namespaces; warmOuterVerb
	// the stage an ordinary user's cordis starts, which makes them (see
	// helperStage) and passes the socket on.
	warmVerb      = "__sandbox-warm"
	warmOuterVerb = "__sandbox-warm-outer"
	// warmFD is where the helper finds its end of the socket.
	warmFD = 3
	// maxWarmRequest bounds a request (the environment is most of it).
	maxWarmRequest = 1 << 20
)

// Warm is a helper waiting for its command. Cmd is started by the caller
// (internal/proc, which owns its process group); Send gives it the
// command, once.
type Warm struct {
	Cmd     *exec.Cmd
	control *os.File
}

// warmRequest is the message a warm helper waits for.
type warmRequest struct {
	Policy *Policy  `json:"policy"`
	Path   string   `json:"path"`
	Args   []string `json:"args"`
	Env    []string `json:"env"`
	Dir    string   `json:"dir"`
}

// NewWarm prepares a warm helper: an exec.Cmd, not started, in its own
// process group, with standard streams on /dev/null (the command's
// arrive with the request). It fails where namespaces are not available.
func NewWarm() (*Warm, error) {
	if !Check().Namespaces() {
		return nil, errors.New("sandbox: user namespaces are not available")
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	parent, child := os.NewFile(uintptr(fds[0]), "sandbox-control"), os.NewFile(uintptr(fds[1]), "sandbox-control")
	verb := warmVerb
	attr := &syscall.SysProcAttr{Setpgid: true}
	if helperStage() == innerVerb {
		setNamespaces(attr)
	} else {
		verb = warmOuterVerb
	}
	cmd := exec.Command("/proc/self/exe", verb)
	cmd.ExtraFiles = []*os.File{child} // fd 3
	cmd.SysProcAttr = attr
	cmd.Env = []string{}
	return &Warm{Cmd: cmd, control: parent}, nil
}

// Started must be called once Cmd has started (or failed to): the
// helper's end of the socket is closed here.
func (w *Warm) Started() { w.Cmd.ExtraFiles[0].Close() }

// Close gives up a helper that will get no command: it exits.
func (w *Warm) Close() { w.control.Close() }

// Send hands the helper its command: p confines path with args, started
// in dir with env and the three standard streams (which the caller may
// close once Send returns).
func (w *Warm) Send(p *Policy, path string, args, env []string, dir string, stdin, stdout, stderr *os.File) error {
	defer w.control.Close()
	if err := Check().usable(p); err != nil {
		return err
	}
	msg, err := json.Marshal(warmRequest{Policy: p, Path: path, Args: args, Env: env, Dir: dir})
	if err != nil {
		return err
	}
	if len(msg) > maxWarmRequest {
		return fmt.Errorf("sandbox: the command and its environment take %d bytes, more than the helper accepts (%d)", len(msg), maxWarmRequest)
	}
	rights := unix.UnixRights(int(stdin.Fd()), int(stdout.Fd()), int(stderr.Fd()))
	return unix.Sendmsg(int(w.control.Fd()), msg, rights, nil, 0)
}

// warmMain is the waiting stage: it receives the request and runs it as
// inner does. A closed socket (the helper was given up) exits quietly.
func warmMain() int {
	buf := make([]byte, maxWarmRequest)
	oob := make([]byte, unix.CmsgSpace(3*4))
	n, oobn, _, _, err := unix.Recvmsg(warmFD, buf, oob, 0)
	if err != nil {
		return fail(fmt.Errorf("waiting for the command: %w", err))
	}
	if n == 0 && oobn == 0 {
		return 0
	}
	unix.Close(warmFD)
	var files []*os.File
	if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil && len(msgs) == 1 {
		if fds, err := unix.ParseUnixRights(&msgs[0]); err == nil && len(fds) == 3 {
			for _, fd := range fds {
				files = append(files, os.NewFile(uintptr(fd), "stdio"))
			}
		}
	}
	if len(files) != 3 {
		return fail(errors.New("the command's standard streams did not arrive"))
	}
	// Whatever happens next, say it where the caller reads.
	unix.Dup2(int(files[2].Fd()), 2)
	var req warmRequest
	if err := json.Unmarshal(buf[:n], &req); err != nil || req.Policy == nil {
		return fail(fmt.Errorf("bad request: %v", err))
	}
	if err := req.Policy.validate(); err != nil {
		return fail(err)
	}
	if err := os.Chdir(req.Dir); err != nil && req.Dir != "" {
		return fail(err)
	}
	return runAsFirstProcess(req.Policy, req.Path, req.Args, func(cmd *exec.Cmd) {
		cmd.Env, cmd.Dir = req.Env, req.Dir
		cmd.Stdin, cmd.Stdout, cmd.Stderr = files[0], files[1], files[2]
	})
}

// warmOuterMain starts the waiting stage in new namespaces, passing the
// socket on, and mirrors it (an ordinary user's cordis cannot make the
// namespaces itself: helperStage).
func warmOuterMain() int {
	return mirror(exec.Command("/proc/self/exe", warmVerb), os.NewFile(warmFD, "sandbox-control"))
}
