package hardening

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Apply makes the process non-dumpable, starts the thread that starts
// every child without CAP_SYS_PTRACE (see Start), and wipes the values of
// names from its initial environment block. Every step is attempted; the
// error joins what failed.
func Apply(names ...string) error {
	var errs []error
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		errs = append(errs, fmt.Errorf("prctl(PR_SET_DUMPABLE): %w", err))
	}
	if err := startSpawner(); err != nil {
		errs = append(errs, err)
	}
	if err := wipeInitialEnv(names); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// A non-dumpable process's /proc entries (environ, fd, mem) and ptrace are
// still open to a process with CAP_SYS_PTRACE, which every child of a root
// cordis would have. The capability bounding set limits what a program can
// hold after execve, but it belongs to a thread, not the process, and Go
// starts children from whichever thread the caller runs on (and cannot
// change every thread in a cgo build). So children are started from one
// locked thread whose bounding set lacks CAP_SYS_PTRACE: a clone inherits
// the thread's credentials. cordis's own capabilities do not change.
var spawner struct {
	once sync.Once
	jobs chan func()
	err  error
}

func startSpawner() error {
	spawner.once.Do(func() {
		ready := make(chan error)
		jobs := make(chan func())
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the process
			err := unix.Prctl(unix.PR_CAPBSET_DROP, unix.CAP_SYS_PTRACE, 0, 0, 0)
			if err == unix.EPERM || err == unix.EINVAL {
				// Not root (no CAP_SETPCAP): the children of an ordinary
				// user never had CAP_SYS_PTRACE, and non-dumpable is enough.
				err = nil
			}
			ready <- err
			if err != nil {
				return
			}
			for job := range jobs {
				job()
			}
		}()
		if err := <-ready; err != nil {
			spawner.err = fmt.Errorf("prctl(PR_CAPBSET_DROP, CAP_SYS_PTRACE): %w", err)
			return
		}
		spawner.jobs = jobs
	})
	return spawner.err
}

// Start runs start (an exec.Cmd's Start) on the spawner thread once Apply
// has run, so that the child cannot gain CAP_SYS_PTRACE; before Apply, or
// where it failed, it runs start where it is called.
func Start(start func() error) error {
	if spawner.jobs == nil {
		return start()
	}
	done := make(chan error, 1)
	spawner.jobs <- func() { done <- start() }
	return <-done
}

// ChildrenCanPtrace reports whether a child started through Start could
// hold CAP_SYS_PTRACE (it is in the spawner thread's bounding set).
func ChildrenCanPtrace() bool {
	can := true
	Start(func() error {
		v, err := unix.PrctlRetInt(unix.PR_CAPBSET_READ, unix.CAP_SYS_PTRACE, 0, 0, 0)
		can = err != nil || v == 1
		return nil
	})
	return can
}

// Dumpable reports whether the process is dumpable, for tests and /doctor.
func Dumpable() bool {
	v, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	return err != nil || v != 0
}

// wipeInitialEnv zeroes the value bytes of each NAME=value of names in the
// memory between env_start and env_end (proc(5)), through /proc/self/mem.
func wipeInitialEnv(names []string) error {
	if len(names) == 0 {
		return nil
	}
	start, end, err := envBounds()
	if err != nil {
		return fmt.Errorf("wipe environment: %w", err)
	}
	block, err := os.ReadFile("/proc/self/environ")
	if err != nil {
		return fmt.Errorf("wipe environment: %w", err)
	}
	if uint64(len(block)) > end-start {
		return fmt.Errorf("wipe environment: /proc/self/environ is %d bytes, the block %d", len(block), end-start)
	}
	mem, err := os.OpenFile("/proc/self/mem", os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("wipe environment: %w", err)
	}
	defer mem.Close()
	offset := 0
	for _, kv := range bytes.Split(block, []byte{0}) {
		name, value, ok := bytes.Cut(kv, []byte{'='})
		if ok && len(value) > 0 && wanted(string(name), names) {
			at := int64(start) + int64(offset+len(name)+1)
			if _, err := mem.WriteAt(make([]byte, len(value)), at); err != nil {
				return fmt.Errorf("wipe environment: %s: %w", name, err)
			}
		}
		offset += len(kv) + 1
	}
	return nil
}

func wanted(name string, names []string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// envBounds reads env_start and env_end, fields 50 and 51 of
// /proc/self/stat (counted from 1; the command name in field 2 may hold
// spaces and parentheses, so fields are counted after its last ')').
func envBounds() (start, end uint64, err error) {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, 0, err
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, errors.New("unexpected /proc/self/stat")
	}
	fields := strings.Fields(string(stat[i+1:])) // fields[0] is field 3
	const envStart, envEnd = 50 - 3, 51 - 3
	if len(fields) <= envEnd {
		return 0, 0, errors.New("/proc/self/stat has no env_start/env_end (kernel older than 3.5)")
	}
	if start, err = strconv.ParseUint(fields[envStart], 10, 64); err != nil {
		return 0, 0, err
	}
	if end, err = strconv.ParseUint(fields[envEnd], 10, 64); err != nil {
		return 0, 0, err
	}
	if end <= start {
		return 0, 0, errors.New("/proc/self/stat: empty environment block")
	}
	return start, end, nil
}
