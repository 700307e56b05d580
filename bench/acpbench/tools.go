package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ---- tools: Grep, Glob and Read through the built binary, against rg

// toolCase is one tool call cordis makes in a real turn and the command
// that does the same job (ripgrep with Claude Code's Grep and Glob
// arguments, or head for a default Read), run in the same tree.
type toolCase struct {
	Name  string   `json:"name"`
	Tool  string   `json:"tool"`
	Input string   `json:"input"` // the tool's input, JSON
	Peer  []string `json:"peer"`  // argv, run in the tree
}

// rgBase is what Claude Code's Grep adds to every rg call: hidden files
// searched, VCS folders left out, long lines cut.
var rgBase = []string{"--hidden", "--glob", "!.git", "--max-columns", "500"}

func treeCases(rg string) []toolCase {
	grep := func(name, input string, args ...string) toolCase {
		return toolCase{Name: name, Tool: "Grep", Input: input, Peer: append(append([]string{rg}, rgBase...), args...)}
	}
	return []toolCase{
		grep("literal", `{"pattern":"func main"}`, "-l", "func main", "."),
		grep("ignorecase", `{"pattern":"content-type","-i":true}`, "-l", "-i", "content-type", "."),
		grep("alternation", `{"pattern":"(TODO|FIXME|XXX):"}`, "-l", "(TODO|FIXME|XXX):", "."),
		grep("nomatch", `{"pattern":"zqxjkvbwpy"}`, "-l", "zqxjkvbwpy", "."),
		grep("content-literal", `{"pattern":"func main","output_mode":"content"}`, "-n", "func main", "."),
		grep("content-ignorecase", `{"pattern":"content-type","-i":true,"output_mode":"content"}`, "-n", "-i", "content-type", "."),
		grep("content-alternation", `{"pattern":"(TODO|FIXME|XXX):","output_mode":"content"}`, "-n", "(TODO|FIXME|XXX):", "."),
		grep("content-nomatch", `{"pattern":"zqxjkvbwpy","output_mode":"content"}`, "-n", "zqxjkvbwpy", "."),
		{Name: "glob", Tool: "Glob", Input: `{"pattern":"**/*_test.go"}`, Peer: []string{rg, "--files", "--hidden", "--glob", "!.git", "--glob", "*_test.go", "--sortr", "modified"}},
	}
}

func bigFileCases(rg, file string) []toolCase {
	q := quote(file)
	return []toolCase{
		{Name: "grep-needle", Tool: "Grep", Input: `{"pattern":"needle-at-the-end","path":` + q + `}`, Peer: []string{rg, "-l", "needle-at-the-end", file}},
		{Name: "grep-content", Tool: "Grep", Input: `{"pattern":"needle-at-the-end","path":` + q + `,"output_mode":"content"}`, Peer: []string{rg, "-n", "needle-at-the-end", file}},
		{Name: "read-default", Tool: "Read", Input: `{"file_path":` + q + `}`, Peer: []string{"head", "-n", "2000", file}},
		{Name: "read-window", Tool: "Read", Input: `{"file_path":` + q + `,"offset":1000000,"limit":100}`, Peer: []string{"sed", "-n", "1000000,1000099p;1000100q", file}},
	}
}

// toolRun is one measured pair: cordis's call in a turn, then (or
// before: the order alternates) the peer command.
type toolRun struct {
	Tool        time.Duration `json:"toolNs"` // tool_call to its completed update
	Turn        time.Duration `json:"turnNs"` // session/prompt to its response
	HWM         int64         `json:"hwmKiB"` // cordis's VmHWM after the turn
	ResultBytes int           `json:"resultBytes"`
	Peer        time.Duration `json:"peerNs"`
	PeerHWM     int64         `json:"peerMaxRssKiB"`
	Err         string        `json:"error,omitempty"`
}

type toolResult struct {
	Tree  string    `json:"tree"`
	Files int       `json:"files"`
	Case  toolCase  `json:"case"`
	Runs  []toolRun `json:"runs"`
}

// toolsBench runs every case on every tree (-trees name=dir,...) and on
// -bigfile, o.warmup+o.n pairs each, cordis and the peer alternating
// which goes first; each cordis run is a fresh process (so VmHWM is the
// call's peak) with the session's cwd at the tree.
func toolsBench(o *options) error {
	rg, err := exec.LookPath(o.rg)
	if err != nil {
		return fmt.Errorf("ripgrep (%s) is not installed: bench/tools.sh installs it", o.rg)
	}
	m := newModel()
	defer m.srv.Close()
	m.set("tools", 0, 0)
	type job struct {
		tree, dir string
		c         toolCase
	}
	var jobs []job
	for _, spec := range strings.Split(o.trees, ",") {
		name, dir, ok := strings.Cut(spec, "=")
		if !ok {
			continue
		}
		for _, c := range treeCases(rg) {
			jobs = append(jobs, job{name, dir, c})
		}
	}
	if o.bigfile != "" {
		for _, c := range bigFileCases(rg, o.bigfile) {
			jobs = append(jobs, job{"bigfile", filepath.Dir(o.bigfile), c})
		}
	}
	only, err := regexp.Compile(o.only)
	if err != nil {
		return fmt.Errorf("-only: %w", err)
	}
	var results []toolResult
	files := map[string]int{}
	for _, j := range jobs {
		if !only.MatchString(j.tree + "/" + j.c.Name) {
			continue
		}
		if _, ok := files[j.dir]; !ok {
			files[j.dir] = countFiles(j.dir)
		}
		res := toolResult{Tree: j.tree, Files: files[j.dir], Case: j.c}
		for i := range o.warmup + o.n {
			var r toolRun
			peerFirst := i%2 == 1
			if peerFirst {
				r.Peer, r.PeerHWM = runPeer(j.c.Peer, j.dir)
			}
			toolOnce(o, m, j.dir, j.c, &r)
			if !peerFirst {
				r.Peer, r.PeerHWM = runPeer(j.c.Peer, j.dir)
			}
			if r.Err != "" {
				fmt.Fprintf(os.Stderr, "tools %s/%s: %s\n", j.tree, j.c.Name, r.Err)
			}
			if i >= o.warmup {
				res.Runs = append(res.Runs, r)
			}
		}
		results = append(results, res)
		ok := okToolRuns(res.Runs)
		t, p := median(pick(ok, func(r toolRun) time.Duration { return r.Tool })), median(pick(ok, func(r toolRun) time.Duration { return r.Peer }))
		fmt.Fprintf(os.Stderr, "tools %s/%s: cordis %s, peer %s, %s\n", j.tree, j.c.Name, ms(t), ms(p), ratio(t, p))
	}
	return writeJSON(o, "tools", results)
}

// toolOnce runs one turn in which the model makes c's call.
func toolOnce(o *options, m *model, dir string, c toolCase, r *toolRun) {
	e, err := newCordisEnv(o)
	if err != nil {
		r.Err = err.Error()
		return
	}
	defer e.remove()
	m.mu.Lock()
	m.tool, m.input = c.Tool, c.Input
	m.mu.Unlock()
	p, err := liveCordis(o, e, m)
	if err != nil {
		r.Err = err.Error()
		return
	}
	defer p.stop()
	var mu sync.Mutex
	var started, ended time.Time
	p.onUpdate = func(line []byte, at time.Time) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case bytes.Contains(line, []byte(`"sessionUpdate":"tool_call"`)):
			started = at
		case bytes.Contains(line, []byte(`"sessionUpdate":"tool_call_update"`)) &&
			(bytes.Contains(line, []byte(`"status":"completed"`)) || bytes.Contains(line, []byte(`"status":"failed"`))):
			ended = at
			r.ResultBytes = len(line)
			if bytes.Contains(line, []byte(`"status":"failed"`)) {
				r.Err = "the call failed: " + string(line[:min(len(line), 300)])
			}
		}
	}
	sid, err := openSession(p, dir)
	if err != nil {
		r.Err = err.Error()
		return
	}
	f, sent, err := prompt(p, sid, "Run the tool.")
	if err != nil {
		r.Err = err.Error()
		return
	}
	r.Turn = f.at.Sub(sent)
	r.HWM, _, _ = status(p.cmd.Process.Pid)
	mu.Lock()
	defer mu.Unlock()
	if started.IsZero() || ended.IsZero() {
		r.Err = cmp(r.Err, "no tool call seen"+p.stderrTail())
		return
	}
	r.Tool = ended.Sub(started)
}

func cmp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// runPeer runs argv in dir, output discarded, and returns its wall time
// and peak RSS (KiB).
func runPeer(argv []string, dir string) (time.Duration, int64) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	start := time.Now()
	cmd.Run() // rg exits 1 when nothing matches
	d := time.Since(start)
	var hwm int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		hwm = ru.Maxrss
	}
	return d, hwm
}

func okToolRuns(rs []toolRun) []toolRun {
	var out []toolRun
	for _, r := range rs {
		if r.Err == "" {
			out = append(out, r)
		}
	}
	return out
}

func countFiles(dir string) int {
	n := 0
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
		}
		return nil
	})
	return n
}

// toolsTable renders tools.json.
func toolsTable(o *options, w func(string, ...any)) {
	var results []toolResult
	if !readJSON(o, "tools", &results) || len(results) == 0 {
		return
	}
	w("\n## Tools through the built binary (issue 23)\n\nEach row: a fresh `cordis acp` whose loopback model makes one tool call in a real turn; the time is from the `tool_call` frame to its completed `tool_call_update` as the editor reads them (hooks and permission included). The peer is ripgrep with Claude Code's Grep and Glob arguments (`%s`), or `head`/`sed` for Read, run in the same tree; the two alternate which goes first. Medians [min–max]; the ratio is of the medians, \"paired\" the median of each pair's ratio; peak RSS is cordis's VmHWM after the turn (the whole process) and the peer's maxrss.\n\n", strings.Join(rgBase, " "))
	w("| tree (files) | call | cordis | peer | ratio | n | cordis peak RSS | peer peak RSS | result frame |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range results {
		ok := okToolRuns(r.Runs)
		if len(ok) == 0 {
			w("| %s | %s | failed: %s | | | | | | |\n", r.Tree, r.Case.Name, r.Runs[0].Err)
			continue
		}
		t, p := pick(ok, func(r toolRun) time.Duration { return r.Tool }), pick(ok, func(r toolRun) time.Duration { return r.Peer })
		var paired []float64
		for _, r := range ok {
			if r.Peer > 0 {
				paired = append(paired, float64(r.Tool)/float64(r.Peer))
			}
		}
		w("| %s (%s) | %s `%s` | %s | %s | %s (paired %.1fx) | %d | %s | %s | %s B |\n", r.Tree, thousands(r.Files), r.Case.Tool, compactJSON(r.Case.Input), minMax(t), minMax(p), ratio(median(t), median(p)), medianF(paired), len(ok),
			mib(medianInt(pickInt(ok, func(r toolRun) int64 { return r.HWM }))), mib(medianInt(pickInt(ok, func(r toolRun) int64 { return r.PeerHWM }))),
			thousands(int(medianInt(pickInt(ok, func(r toolRun) int64 { return int64(r.ResultBytes) })))))
	}
}

func compactJSON(s string) string {
	var v map[string]any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	if p, ok := v["path"].(string); ok {
		v["path"] = filepath.Base(p)
	}
	if p, ok := v["file_path"].(string); ok {
		v["file_path"] = filepath.Base(p)
	}
	data, _ := json.Marshal(v)
	return strings.ReplaceAll(string(data), "|", `\|`)
}

func minMax(ds []time.Duration) string {
	lo, hi := ds[0], ds[0]
	for _, d := range ds {
		lo, hi = min(lo, d), max(hi, d)
	}
	return fmt.Sprintf("%s [%s–%s]", ms(median(ds)), ms(lo), ms(hi))
}
