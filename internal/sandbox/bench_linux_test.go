package sandbox

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// The cost a sandbox adds per command: bash -c true started and waited for,
// unconfined, in the read-only sandbox (a fresh locked thread, no extra
// exec) and in the workspace sandbox (the helper, its namespaces and
// mounts). Compare the ratios within one run (bench/run.sh, BENCHMARKS.md).
func benchmarkStart(b *testing.B, p *Policy) {
	if p != nil {
		if err := Check().usable(p); err != nil {
			b.Skipf("cannot enforce: %v", err)
		}
	}
	for b.Loop() {
		cmd := exec.Command("/bin/bash", "-c", "true")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		var err error
		if p == nil {
			err = cmd.Start()
		} else {
			err = Start(cmd, p, cmd.Start)
		}
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStartUnconfined(b *testing.B) { benchmarkStart(b, nil) }

func BenchmarkStartReadOnly(b *testing.B) {
	benchmarkStart(b, &Policy{Read: append([]string{b.TempDir()}, systemRead...)})
}

func BenchmarkStartWorkspace(b *testing.B) {
	dir := b.TempDir()
	benchmarkStart(b, &Policy{ReadAll: true, Write: []string{dir}, Protect: []string{dir + "/.git/config"}})
}

// BenchmarkWarmWorkspace is the workspace sandbox through a helper
// started ahead (untimed), as internal/proc keeps one waiting: what is
// left is sending the command, the mounts, the restrictions and bash.
func BenchmarkWarmWorkspace(b *testing.B) {
	dir := b.TempDir()
	p := &Policy{ReadAll: true, Write: []string{dir}, Protect: []string{dir + "/.git/config"}}
	if err := Check().usable(p); err != nil {
		b.Skipf("cannot enforce: %v", err)
	}
	devnull, _ := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	defer devnull.Close()
	for b.Loop() {
		b.StopTimer()
		w, err := NewWarm()
		if err != nil {
			b.Skip(err)
		}
		if err := w.Cmd.Start(); err != nil {
			b.Fatal(err)
		}
		w.Started()
		time.Sleep(5 * time.Millisecond) // waiting, as a kept helper is
		b.StartTimer()
		if err := w.Send(p, "/bin/bash", []string{"-c", "true"}, nil, dir, devnull, devnull, devnull); err != nil {
			b.Fatal(err)
		}
		if err := w.Cmd.Wait(); err != nil {
			b.Fatal(err)
		}
	}
}
