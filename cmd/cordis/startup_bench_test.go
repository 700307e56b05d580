package main

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"testing"
)

// BenchmarkServeToInitialize measures what `cordis acp` does in-process
// before it answers the editor, without the process start and package
// initialization (the whole-process figure is bench/run.sh's): the flags,
// the state directory, the built-in configuration, the plugins and hook
// bridges, the ACP server, then initialize (and session/new) answered.
func BenchmarkServeToInitialize(b *testing.B) {
	for _, upTo := range []string{"initialize", "session/new"} {
		b.Run(upTo, func(b *testing.B) {
			home := b.TempDir()
			b.Setenv("HOME", home)
			b.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			b.Setenv("ANTHROPIC_API_KEY", "bench-key")
			b.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
			cwd := b.TempDir()
			b.Chdir(cwd)
			b.ReportAllocs()
			for b.Loop() {
				inR, inW := io.Pipe()
				outR, outW := io.Pipe()
				done := make(chan error, 1)
				go func() {
					done <- run([]string{"acp", "--state-dir", filepath.Join(home, "state")}, inR, outW, io.Discard)
					outW.Close()
				}()
				out := bufio.NewReader(outR)
				io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`+"\n")
				if _, err := out.ReadBytes('\n'); err != nil {
					b.Fatal(err)
				}
				if upTo == "session/new" {
					fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`+"\n", cwd)
					if _, err := out.ReadBytes('\n'); err != nil {
						b.Fatal(err)
					}
				}
				// Shutdown (and the orphan reaper it runs) is not start-up.
				b.StopTimer()
				inW.Close()
				go io.Copy(io.Discard, out)
				if err := <-done; err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}
