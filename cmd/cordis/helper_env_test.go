//go:build linux

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/acp"
)

// Issue 27, finding 4: the process-group watchdog, a helper cordis starts
// itself and that lives as long as cordis, must not carry cordis's
// environment: any process of the same user can read
// /proc/<watchdog>/environ, and the provider key was there.
func TestWatchdogEnvironmentHoldsNoKey(t *testing.T) {
	ctx := testCtx(t)
	model := newFakeModel(t, toolReply("toolu_1", "Bash", `{"command":"echo ran"}`), textReply("Done."))
	p := startProc(t, model.srv.URL, procOpts{
		config: bypassConfig(""),
		env:    []string{"ANTHROPIC_API_KEY=" + fakeKey, "CORDIS_TEST_MARKER=inherited"},
	})
	p.e.Initialize(ctx, acp.ClientCapabilities{})
	sid := p.e.NewSession(ctx, p.work).SessionID
	// The Bash command is the first process group: the watchdog starts
	// with it and lives until cordis ends.
	if stop, err := p.e.Prompt(ctx, sid, "run something"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	pid := watchdogOf(t, p.cmd.Process.Pid)
	environ, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
	if err != nil {
		t.Fatalf("reading the watchdog's environ: %v", err)
	}
	if bytes.Contains(environ, []byte(fakeKey)) || bytes.Contains(environ, []byte("ANTHROPIC_API_KEY")) {
		t.Errorf("the watchdog's /proc/%d/environ holds the provider key", pid)
	}
	// Not a filtered copy of cordis's environment, an explicit one.
	if bytes.Contains(environ, []byte("CORDIS_TEST_MARKER")) || bytes.Contains(environ, []byte("HOME=")) {
		t.Errorf("the watchdog inherited cordis's environment: %q", strings.ReplaceAll(string(environ), "\x00", " "))
	}
}

// watchdogOf finds the child of cordis (pid) that runs the watchdog: /bin/sh
// with its script, which reads +PGID and -PGID lines.
func watchdogOf(t *testing.T, pid int) int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The fields after the command name, which is in parentheses
		// and may hold anything: state, then the parent's pid.
		rest := stat[bytes.LastIndexByte(stat, ')')+1:]
		fields := strings.Fields(string(rest))
		if len(fields) < 2 || fields[1] != strconv.Itoa(pid) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		args := strings.Split(string(cmdline), "\x00")
		if len(args) >= 3 && args[0] == "/bin/sh" && args[1] == "-c" && strings.Contains(args[2], `while read -r op pg`) {
			return child
		}
	}
	t.Fatalf("no child of cordis (pid %d) runs the watchdog", pid)
	return 0
}
