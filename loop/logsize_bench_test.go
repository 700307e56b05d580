package loop_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/tools"
	"github.com/cordis-agent/cordis/sessionlog"
)

// BenchmarkLogPerToolByte measures what a session with big tool outputs
// costs on disk and to reopen (issue 23): 100 turns, each a Read of a
// 32 KB file (about 40 KB of output with line numbers) and a short
// answer, through the loop with the built-in hooks. It reports the
// session log's bytes per byte of tool output (logB/toolB; the dialect
// renderings are not written, as no hook of a dialect is configured)
// and session/load's time over a plain decode of the same log, every
// line json.Unmarshal'ed into an any (load/decode; the two alternate,
// one op is one of each); resume/decode is the same for session/resume,
// which restores the session without replaying it to the editor.
func BenchmarkLogPerToolByte(b *testing.B) {
	cwd, state := b.TempDir(), b.TempDir()
	notes := filepath.Join(cwd, "notes.txt")
	var content strings.Builder
	for i := 0; content.Len() < 32<<10; i++ {
		fmt.Fprintf(&content, "line %d of the notes: \"quoted\" text, a tab\there and some more words to fill it\n", i)
	}
	os.WriteFile(notes, []byte(content.String()), 0o644)
	in, _ := json.Marshal(map[string]string{"file_path": notes})
	read, _ := tools.ByName(tools.Builtin(), "Read")
	output := read.Run(b.Context(), &tools.Env{Cwd: cwd, Roots: []string{cwd}}, in).Text
	const turns = 100
	cfg := loop.Config{Provider: benchProvider(b, toolTurnBody(notes)), Model: "claude-test", StateDir: state, Hooks: builtinHooks(b)}
	e := startBench(b, cfg)
	sid := e.open(b, cwd)
	for k := 1; k <= turns; k++ {
		e.prompt(b, sid, fmt.Sprintf("Turn %d: read the notes and summarize them.", k))
	}
	e.call(b, "session/close", map[string]any{"sessionId": sid})
	path := sessionlog.Path(state, sid)
	pristine, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var disk int64
	filepath.Walk(state, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() && strings.HasPrefix(p, filepath.Dir(path)) {
			disk += fi.Size()
		}
		return nil
	})
	provider := benchProvider(b, func([]byte) []byte { return nil })
	var load, resume, decode time.Duration
	b.ResetTimer()
	for b.Loop() {
		os.WriteFile(path, pristine, 0o600)
		e := startBench(b, loop.Config{Provider: provider, Model: "claude-test", StateDir: state, Hooks: builtinHooks(b)})
		e.call(b, "initialize", map[string]any{"protocolVersion": 1})
		start := time.Now()
		e.call(b, "session/load", map[string]any{"sessionId": sid, "cwd": cwd, "mcpServers": []any{}})
		load += time.Since(start)
		e.call(b, "session/close", map[string]any{"sessionId": sid})
		os.WriteFile(path, pristine, 0o600)
		start = time.Now()
		e.call(b, "session/resume", map[string]any{"sessionId": sid, "cwd": cwd, "mcpServers": []any{}})
		resume += time.Since(start)
		e.call(b, "session/close", map[string]any{"sessionId": sid})

		decode += plainDecode(b, path)
	}
	b.ReportMetric(float64(len(pristine))/float64(turns*len(output)), "logB/toolB")
	b.ReportMetric(float64(disk)/float64(turns*len(output)), "sessionsB/toolB")
	b.ReportMetric(float64(load)/float64(decode), "load/decode")
	b.ReportMetric(float64(resume)/float64(decode), "resume/decode")
	b.ReportMetric(float64(load.Milliseconds())/float64(b.N), "load-ms")
	b.ReportMetric(float64(decode.Milliseconds())/float64(b.N), "decode-ms")
	b.ReportMetric(float64(len(pristine))/1e6, "log-MB")
}
