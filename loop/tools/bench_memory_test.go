package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkFileToolMemory reports the peak resident memory a Write or an
// Edit of a 1, 16 and 64 MiB file adds to the process (issue 18 item 5),
// the diff content the editor and the log then get included (it is
// JSON-encoded here as the loop encodes it). peak-MiB is VmHWM after the
// call minus VmRSS before it, with the high-water mark reset through
// /proc/self/clear_refs; input-MiB is the JSON input the call is given
// (already in memory before the call, as it is in the loop).
//
//	go test ./loop/tools -run '^$' -bench FileToolMemory -benchtime 3x
func BenchmarkFileToolMemory(b *testing.B) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Skip("cannot reset the RSS high-water mark:", err)
	}
	for _, mib := range []int{1, 16, 64} {
		content := bigText(mib << 20)[:mib<<20]
		changed := strings.Replace(content, "line 1000 of", "line one thousand of", 1)
		cases := []struct {
			name  string
			tool  string
			input map[string]any
		}{
			{"Write", "Write", map[string]any{"content": changed}},
			{"Edit", "Edit", map[string]any{"old_string": "line 2000 of", "new_string": "line two thousand of"}},
			{"EditAll", "Edit", map[string]any{"old_string": "padded", "new_string": "filled", "replace_all": true}},
		}
		for _, c := range cases {
			b.Run(fmt.Sprintf("%s/%dMiB", c.name, mib), func(b *testing.B) {
				dir, err := filepath.EvalSymlinks(b.TempDir())
				if err != nil {
					b.Fatal(err)
				}
				env := &Env{Cwd: dir, Roots: []string{dir}}
				p := filepath.Join(env.Cwd, "big.txt")
				c.input["file_path"] = p
				input, _ := json.Marshal(c.input)
				tool, _ := ByName(Builtin(), c.tool)
				var peak, frame float64
				for b.Loop() {
					b.StopTimer()
					if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
						b.Fatal(err)
					}
					runtime.GC()
					debug.FreeOSMemory()
					before := procStatusKiB(b, "VmRSS")
					os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
					b.StartTimer()
					res := tool.Run(b.Context(), env, input)
					out, _ := json.Marshal(res.Diffs)
					b.StopTimer()
					if res.IsError {
						b.Fatal(res.Text)
					}
					peak = max(peak, float64(procStatusKiB(b, "VmHWM")-before)/1024)
					frame = float64(len(out)) / 1024
					b.StartTimer()
				}
				b.ReportMetric(peak, "peak-MiB")
				b.ReportMetric(float64(len(input))/(1<<20), "input-MiB")
				b.ReportMetric(frame, "diff-KiB")
			})
		}
	}
}

// procStatusKiB is a kB field of /proc/self/status.
func procStatusKiB(b *testing.B, field string) int {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return n
		}
	}
	b.Fatalf("no %s in /proc/self/status", field)
	return 0
}
