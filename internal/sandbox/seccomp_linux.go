package sandbox

import (
	"errors"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The seccomp filter covers what Landlock does not (on ABI 7): UDP, raw and
// other socket families, Unix sockets (pathname sockets are Landlock's only
// from ABI 9), io_uring (whose socket operations never pass through the
// socket system call), and, for a read-only policy, the metadata calls
// Landlock ignores (chmod, chown, utimes, xattrs). A refused call fails
// with EPERM; the process lives on.

// bpf opcodes (linux/filter.h).
const (
	bpfLdAbsW = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJeqK   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJgeK   = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	bpfJa     = unix.BPF_JMP | unix.BPF_JA
	bpfAndK   = unix.BPF_ALU | unix.BPF_AND | unix.BPF_K
	bpfRetK   = unix.BPF_RET | unix.BPF_K
)

// seccomp_data offsets.
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16 // low 32 bits on a little-endian machine
	offArg1 = 24
	offArg2 = 32
)

var (
	retAllow = uint32(unix.SECCOMP_RET_ALLOW)
	retEPERM = uint32(unix.SECCOMP_RET_ERRNO) | uint32(unix.EPERM)
)

// asm is a tiny assembler with labels, so jump offsets are computed, not
// counted by hand.
type asm struct {
	prog   []unix.SockFilter
	labels map[string]int
	fix    []fixup
}

type fixup struct {
	at     int
	jt, jf string // "" for the next instruction
	ja     string
}

func (a *asm) op(code uint16, k uint32) { a.prog = append(a.prog, unix.SockFilter{Code: code, K: k}) }

// jeq jumps to label when the accumulator equals k, else falls through.
func (a *asm) jeq(k uint32, label string) {
	a.fix = append(a.fix, fixup{at: len(a.prog), jt: label})
	a.op(bpfJeqK, k)
}

func (a *asm) jge(k uint32, label string) {
	a.fix = append(a.fix, fixup{at: len(a.prog), jt: label})
	a.op(bpfJgeK, k)
}

func (a *asm) jmp(label string) {
	a.fix = append(a.fix, fixup{at: len(a.prog), ja: label})
	a.op(bpfJa, 0)
}

func (a *asm) label(name string) { a.labels[name] = len(a.prog) }

func (a *asm) assemble() ([]unix.SockFilter, error) {
	for _, f := range a.fix {
		rel := func(l string) (int, error) {
			if l == "" {
				return 0, nil
			}
			to, ok := a.labels[l]
			if !ok || to <= f.at {
				return 0, errors.New("seccomp: bad label " + l)
			}
			return to - f.at - 1, nil
		}
		if f.ja != "" {
			d, err := rel(f.ja)
			if err != nil {
				return nil, err
			}
			a.prog[f.at].K = uint32(d)
			continue
		}
		jt, err := rel(f.jt)
		if err != nil {
			return nil, err
		}
		if jt > 255 {
			return nil, errors.New("seccomp: jump too far")
		}
		a.prog[f.at].Jt = uint8(jt)
	}
	return a.prog, nil
}

// filterFor builds the policy's seccomp program.
func filterFor(p *Policy) ([]unix.SockFilter, error) {
	if auditArch == 0 {
		return nil, errors.New("seccomp: this architecture is not supported")
	}
	a := &asm{labels: map[string]int{}}
	a.op(bpfLdAbsW, offArch)
	a.jeq(auditArch, "native")
	a.op(bpfRetK, retEPERM) // another ABI (i386 on amd64): nothing runs unchecked
	a.label("native")
	a.op(bpfLdAbsW, offNr)
	if x32Bit != 0 {
		a.jge(x32Bit, "deny")
	}
	a.jeq(uint32(unix.SYS_SOCKET), "socket")
	for _, nr := range []uintptr{unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER} {
		a.jeq(uint32(nr), "deny")
	}
	if p.ReadOnly() {
		for _, nr := range metadataSyscalls {
			a.jeq(uint32(nr), "deny")
		}
	}
	a.op(bpfRetK, retAllow)

	a.label("socket")
	a.op(bpfLdAbsW, offArg0)
	a.jeq(unix.AF_UNIX, "unix")
	a.jeq(unix.AF_INET, "inet")
	a.jeq(unix.AF_INET6, "inet")
	a.jmp("deny")

	a.label("unix")
	if p.AllowUnixSockets {
		a.op(bpfRetK, retAllow)
	} else {
		a.jmp("deny")
	}

	a.label("inet")
	if p.ProxyPort == 0 {
		a.jmp("deny")
	} else {
		// TCP only: a stream socket of protocol 0 or IPPROTO_TCP (not
		// MPTCP, which Landlock's TCP rules do not cover).
		a.op(bpfLdAbsW, offArg1)
		a.op(bpfAndK, 0xf)
		a.jeq(unix.SOCK_STREAM, "stream")
		a.jmp("deny")
		a.label("stream")
		a.op(bpfLdAbsW, offArg2)
		a.jeq(0, "allow")
		a.jeq(unix.IPPROTO_TCP, "allow")
		a.jmp("deny")
		a.label("allow")
		a.op(bpfRetK, retAllow)
	}

	a.label("deny")
	a.op(bpfRetK, retEPERM)
	return a.assemble()
}

// loadFilter installs prog on the calling thread only (no TSYNC flag):
// the thread must be locked and already have no_new_privs.
func loadFilter(prog []unix.SockFilter) error {
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog)))
	if errno != 0 {
		return errno
	}
	return nil
}
