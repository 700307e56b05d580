package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/acp/acptest"
)

// BenchmarkBashCallSandbox is what a user feels of the sandbox: one prompt
// whose model answer is a Bash call of `true`, through the binary (the
// loopback model's two answers, the permission flow, the log, the
// editor's updates), unconfined (bypassPermissions, no hooks), in the
// read-only sandbox (plan mode) and in the workspace sandbox
// (agent.sandbox.enabled), with an untimed pause between calls where a
// model would think. Compare the ratios within one run.
func BenchmarkBashCallSandbox(b *testing.B) {
	const llm = "- id: llm\n  name: llm/anthropic\n  config: {model: claude-sonnet-4-5, maxRetries: -1}\n"
	for _, c := range []struct{ name, agent string }{
		{"unconfined", "{defaultMode: bypassPermissions}"},
		{"read-only", "{defaultMode: plan}"},
		{"workspace", "{sandbox: {enabled: true}}"},
	} {
		b.Run(c.name, func(b *testing.B) {
			work := b.TempDir()
			cfg := filepath.Join(b.TempDir(), "cordis.yml")
			os.WriteFile(cfg, []byte("- id: agent\n  name: agent\n  config: "+c.agent+"\n"+llm), 0o644)
			var bodies []string
			for i := range b.N + 1 {
				bodies = append(bodies, toolReply("toolu_"+strconv.Itoa(i), "Bash", `{"command":"true"}`), textReply("ok"))
			}
			model := newFakeModel(b, bodies...)
			cmd := exec.Command(binary, "acp", "--state-dir", b.TempDir(), "--config", cfg)
			home := b.TempDir()
			cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
				"ANTHROPIC_BASE_URL=" + model.srv.URL, "ANTHROPIC_API_KEY=test-key"}
			cmd.Dir = work
			e := acptest.StartProcess(b, cmd)
			ctx := context.Background()
			e.Initialize(ctx, acp.ClientCapabilities{})
			sid := e.NewSession(ctx, work).SessionID
			prompt := func() {
				if stop, err := e.Prompt(ctx, sid, "run"); err != nil || stop != acp.StopEndTurn {
					b.Fatalf("prompt: %q, %v", stop, err)
				}
			}
			prompt() // the first call starts what later ones reuse
			b.ResetTimer()
			for range b.N {
				// A live model takes seconds between two tool calls; the
				// pause (not timed, the same for every variant) keeps
				// work the last call left for that time (a waiting
				// sandbox helper starting) out of the next call's time,
				// as a session would.
				b.StopTimer()
				time.Sleep(20 * time.Millisecond)
				b.StartTimer()
				prompt()
			}
			b.StopTimer()
			e.Close()
		})
	}
}
