package proc

import (
	"bytes"
	"errors"
	"github.com/cordis-agent/cordis/internal/hardening"
	"github.com/cordis-agent/cordis/internal/sandbox"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// owned are the process groups this process started and has not killed
// yet (pgid → count). A process re-parented to this subreaper whose group
// is not owned was orphaned by one of them: a `setsid` daemon that escaped
// its group when the group's leader died.
var owned = struct {
	sync.Mutex
	groups map[int]int
}{groups: map[int]int{}}

// startOwned starts cmd (in its own group) and registers the group, under
// the lock reapOrphans holds, so a new child is never taken for an orphan.
func startOwned(cmd *exec.Cmd, policy *sandbox.Policy) error {
	owned.Lock()
	defer owned.Unlock()
	startWatchdog()
	if policy != nil {
		// Confined: started from a thread of its own that holds no
		// capability and carries the policy (internal/sandbox).
		if err := sandbox.Start(cmd, policy, cmd.Start); err != nil {
			return err
		}
	} else if err := hardening.Start(cmd.Start); err != nil {
		// Started on cordis's hardened thread: the child cannot hold
		// CAP_SYS_PTRACE, which would open cordis's /proc entries to it.
		return err
	}
	if owned.groups[cmd.Process.Pid]++; owned.groups[cmd.Process.Pid] == 1 {
		watch('+', cmd.Process.Pid)
	}
	return nil
}

// release forgets a group once it is gone and kills what it orphaned.
func release(pgid int) {
	owned.Lock()
	if owned.groups[pgid]--; owned.groups[pgid] <= 0 {
		delete(owned.groups, pgid)
		watch('-', pgid)
	}
	owned.Unlock()
	ReapOrphans()
}

// ReapOrphans kills and reaps the processes re-parented to this process
// that belong to no group it owns: what a command left behind outside its
// process group (setsid). Nothing cordis starts outlives the command that
// started it. It does nothing unless this process is a child subreaper.
func ReapOrphans() {
	if !subreaper() {
		return
	}
	owned.Lock()
	defer owned.Unlock()
	self, selfGroup := os.Getpid(), syscall.Getpgrp()
	// A killed orphan's own children are re-parented here in turn.
	for range 8 {
		if !hasChildren() {
			return
		}
		found := false
		for _, p := range children(self) {
			if p.pgrp == selfGroup || owned.groups[p.pgrp] > 0 {
				continue
			}
			found = true
			if p.pgrp == p.pid {
				_ = syscall.Kill(-p.pgrp, syscall.SIGKILL)
			}
			_ = syscall.Kill(p.pid, syscall.SIGKILL)
			var ws syscall.WaitStatus
			for i := 0; i < 100; i++ {
				if pid, _ := syscall.Wait4(p.pid, &ws, syscall.WNOHANG, nil); pid == p.pid {
					break
				}
				time.Sleep(time.Millisecond)
			}
		}
		if !found {
			return
		}
	}
}

// hasChildren reports whether this process has any child, running or
// not: waitid(P_ALL, WEXITED|WNOHANG|WNOWAIT) fails with ECHILD only when
// there is none, and reaps nothing. Without children there is no orphan,
// and ReapOrphans need not read the stat file of every process on the
// machine, which was most of a hook command's own cost (BENCHMARKS.md).
func hasChildren() bool {
	var info [128]byte // siginfo_t
	const pAll = 0
	_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pAll, 0, uintptr(unsafe.Pointer(&info)),
		syscall.WEXITED|syscall.WNOHANG|syscall.WNOWAIT, 0, 0)
	return errno != syscall.ECHILD
}

type procStat struct{ pid, pgrp int }

// children lists the processes whose parent is ppid. It reads the
// children files of ppid's threads, which name only its own children
// (cordis has long-lived ones, such as MCP servers, so this runs after
// most commands); without them (a kernel built without
// CONFIG_PROC_CHILDREN) it reads the stat file of every process.
func children(ppid int) []procStat {
	if out, ok := childrenOfTasks(ppid); ok {
		return out
	}
	return scanChildren(ppid)
}

// childrenOfTasks reads /proc/ppid/task/*/children: an orphan is
// re-parented to one of the subreaper's threads, and each file lists the
// children of its thread.
func childrenOfTasks(ppid int) ([]procStat, bool) {
	dir := "/proc/" + strconv.Itoa(ppid) + "/task/"
	tasks, err := os.ReadDir(dir)
	if err != nil || len(tasks) == 0 {
		return nil, false
	}
	var out []procStat
	for _, t := range tasks {
		data, err := os.ReadFile(dir + t.Name() + "/children")
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && t.Name() == strconv.Itoa(ppid) {
				return nil, false // no children files on this kernel
			}
			continue // the thread exited
		}
		for _, f := range bytes.Fields(data) {
			pid, err := strconv.Atoi(string(f))
			if err != nil {
				continue
			}
			if p, ok := readStat(pid); ok && p.ppid == ppid {
				out = append(out, procStat{pid: pid, pgrp: p.pgrp})
			}
		}
	}
	return out, true
}

// scanChildren lists the processes whose parent is ppid from the stat file
// of every process.
func scanChildren(ppid int) []procStat {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []procStat
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readStat(pid); ok && p.ppid == ppid {
			out = append(out, procStat{pid: pid, pgrp: p.pgrp})
		}
	}
	return out
}

// readStat reads the parent and process group of pid from
// /proc/pid/stat.
func readStat(pid int) (st struct{ ppid, pgrp int }, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return st, false
	}
	// pid (comm) state ppid pgrp ...; comm may hold spaces and parens.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return st, false
	}
	f := bytes.Fields(data[i+1:])
	if len(f) < 3 {
		return st, false
	}
	st.ppid, _ = strconv.Atoi(string(f[1]))
	st.pgrp, _ = strconv.Atoi(string(f[2]))
	return st, true
}
