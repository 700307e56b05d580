package hardening

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestApplyInChild runs Apply in a child copy of the test binary (it
// changes the whole process) and checks, from inside it, that the process
// is no longer dumpable, that /proc/self/environ no longer holds the
// secret while os.Getenv still does, and that other variables are intact.
func TestApplyInChild(t *testing.T) {
	if os.Getenv("HARDENING_CHILD") == "1" {
		if !Dumpable() {
			t.Fatal("child starts non-dumpable")
		}
		if err := Apply("HARDENING_SECRET", "HARDENING_ABSENT"); err != nil {
			t.Fatal(err)
		}
		if Dumpable() {
			t.Error("still dumpable after Apply")
		}
		if os.Geteuid() == 0 && ChildrenCanPtrace() {
			t.Error("CAP_SYS_PTRACE is still in the bounding set of a root process")
		}
		environ, err := os.ReadFile("/proc/self/environ")
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(environ, []byte("s3cret-value-123")) {
			t.Error("the secret is still in /proc/self/environ")
		}
		if !bytes.Contains(environ, []byte("HARDENING_KEEP=visible-value\x00")) {
			t.Error("another variable was damaged")
		}
		if os.Getenv("HARDENING_SECRET") != "s3cret-value-123" {
			t.Error("os.Getenv lost the secret")
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestApplyInChild$", "-test.v")
	cmd.Env = append(os.Environ(), "HARDENING_CHILD=1", "HARDENING_SECRET=s3cret-value-123", "HARDENING_KEEP=visible-value")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}
