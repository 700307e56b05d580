//go:build unix

package sessionlog

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const helperEnv = "SESSIONLOG_CRASH_HELPER_PATH"

// TestCrashHelper is the child of TestCrashMidAppend: it appends large
// events until killed. It does nothing in a normal test run.
func TestCrashHelper(t *testing.T) {
	path := os.Getenv(helperEnv)
	if path == "" {
		t.Skip("helper process for TestCrashMidAppend")
	}
	w, err := Create(path)
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(2)
	}
	// Lines of many pages make it likely that the kill lands inside a
	// write(2), which Linux then cuts short. Under the race detector
	// marshalling dominates whatever the size, so keep the test quick there.
	size := 1 << 20
	if raceEnabled {
		size = 64 << 10
	}
	output := strings.Repeat("x", size)
	for i := int64(1); i <= 100; i++ {
		if _, err := w.Append(TypeToolResult, map[string]any{"i": i, "output": output}); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(2)
		}
		if i == 3 {
			os.Stdout.WriteString("ready\n")
		}
	}
	select {} // wait for the kill
}

// TestCrashMidAppend SIGKILLs a process in the middle of appending and checks
// that every complete event survives with consecutive seqs, and that the log
// can be continued.
func TestCrashMidAppend(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	for round, ms := range []int{0, 2, 5, 10, 20, 40} {
		delay := time.Duration(ms) * time.Millisecond
		path := filepath.Join(t.TempDir(), "sessions", "crash.jsonl")
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashHelper$")
		cmd.Env = append(os.Environ(), helperEnv+"="+path)
		cmd.Stderr = os.Stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if line, err := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("helper said %q, %v; want ready", line, err)
		}
		time.Sleep(delay)
		if err := cmd.Process.Kill(); err != nil { // SIGKILL: no deferred cleanup runs
			t.Fatal(err)
		}
		cmd.Wait()

		events, warnings, err := Read(path)
		if err != nil {
			t.Fatalf("round %d: Read after crash: %v", round, err)
		}
		n := len(events)
		if n < 3 {
			t.Fatalf("round %d: %d events, want at least the 3 written before ready", round, n)
		}
		if diff := cmp.Diff(count(n), seqs(events)); diff != "" {
			t.Fatalf("round %d: seqs (-want +got):\n%s", round, diff)
		}
		for _, ev := range events {
			var d struct{ I int64 }
			if err := json.Unmarshal(ev.Data, &d); err != nil || d.I != ev.Seq {
				t.Fatalf("round %d: seq %d carries i=%d (%v)", round, ev.Seq, d.I, err)
			}
		}
		t.Logf("round %d: %d events survived, warnings %q", round, n, warnings)

		w, err := Open(path)
		if err != nil {
			t.Fatalf("round %d: Open after crash: %v", round, err)
		}
		if len(warnings) != len(w.Warnings()) {
			t.Errorf("round %d: Read warned %q but Open repaired %q", round, warnings, w.Warnings())
		}
		if ev, err := w.Append(TypeSessionLoad, nil); err != nil || ev.Seq != int64(n)+1 {
			t.Fatalf("round %d: Append after Open = seq %d, %v; want %d", round, ev.Seq, err, n+1)
		}
		w.Close()
		events, warnings, err = Read(path)
		if err != nil || len(warnings) != 0 || len(events) != n+1 {
			t.Fatalf("round %d: Read after continuing = %d events, %q, %v; want %d, none, nil", round, len(events), warnings, err, n+1)
		}
	}
}
