package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// cordisEnv is a fresh home for one cordis process.
type cordisEnv struct {
	home, work, state string
}

func newCordisEnv(o *options) (*cordisEnv, error) {
	home, err := os.MkdirTemp(o.tmp, "cordis-")
	if err != nil {
		return nil, err
	}
	e := &cordisEnv{home: home, work: filepath.Join(home, "work"), state: filepath.Join(home, "state")}
	return e, os.MkdirAll(e.work, 0o755)
}

func (e *cordisEnv) remove() { os.RemoveAll(e.home) }

// replayCordis starts cordis on the replay tree (cordis.snapshot.yml: the
// shipped cordis.yml with the model swapped for llm/replay) serving
// fixture.
func replayCordis(o *options, e *cordisEnv, fixture string) (*proc, error) {
	argv := []string{o.cordis, "acp", "--config", filepath.Join(o.repo, "cordis.snapshot.yml"), "--state-dir", e.state}
	env := []string{"HOME=" + e.home, "XDG_CONFIG_HOME=" + filepath.Join(e.home, ".config"), "CORDIS_FIXTURE=" + fixture}
	return spawn("cordis", argv, e.work, env, filepath.Join(e.home, "stderr"))
}

// liveCordis starts cordis on its built-in default configuration (the
// Anthropic provider) pointed at the local model server.
func liveCordis(o *options, e *cordisEnv, m *model) (*proc, error) {
	argv := []string{o.cordis, "acp", "--state-dir", e.state}
	env := []string{"HOME=" + e.home, "XDG_CONFIG_HOME=" + filepath.Join(e.home, ".config"),
		"ANTHROPIC_API_KEY=bench-dummy-key", "ANTHROPIC_BASE_URL=" + m.srv.URL}
	return spawn("cordis", argv, e.work, env, filepath.Join(e.home, "stderr"))
}

func openSession(p *proc, cwd string) (string, error) {
	if _, _, err := p.call("initialize", initializeParams(), time.Minute); err != nil {
		return "", err
	}
	f, _, err := p.call("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}}, time.Minute)
	if err != nil {
		return "", err
	}
	var r struct {
		SessionID string `json:"sessionId"`
	}
	if err := jsonUnmarshal(f.Result, &r); err != nil {
		return "", err
	}
	return r.SessionID, nil
}

func prompt(p *proc, sid, text string) (*frame, time.Time, error) {
	return p.call("session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": text}}}, 10*time.Minute)
}

// ---- memory: RSS after session/new and after a 50-turn replayed session

type memoryRun struct {
	AfterNew   memory        `json:"afterNew"`
	AfterTurns memory        `json:"afterTurns"`
	Turns      int           `json:"turns"`
	TurnMedian time.Duration `json:"turnMedianNs"`
	Err        string        `json:"error,omitempty"`
}

func memoryBench(o *options) error {
	fixture := filepath.Join(o.tmp, "fixture-turns")
	var turns []turn
	for k := range o.turns {
		var ds []string
		for i := range 40 { // about 2 KB of text per answer
			ds = append(ds, fmt.Sprintf("Turn %d, sentence %d: the agent explains something. ", k+1, i))
		}
		turns = append(turns, turn{prompt: fmt.Sprintf("Turn %d: explain the next part of the design.", k+1), deltas: ds})
	}
	if err := writeTextFixture(fixture, turns); err != nil {
		return err
	}
	var runs []memoryRun
	for i := range o.warmup + o.n {
		r := memoryOnce(o, fixture, len(turns))
		if r.Err != "" {
			fmt.Fprintln(os.Stderr, "memory:", r.Err)
		}
		if i >= o.warmup {
			runs = append(runs, r)
		}
	}
	return writeJSON(o, "memory", runs)
}

func memoryOnce(o *options, fixture string, n int) memoryRun {
	var r memoryRun
	e, err := newCordisEnv(o)
	if err != nil {
		r.Err = err.Error()
		return r
	}
	defer e.remove()
	p, err := replayCordis(o, e, fixture)
	if err != nil {
		r.Err = err.Error()
		return r
	}
	defer p.stop()
	sid, err := openSession(p, e.work)
	if err != nil {
		r.Err = err.Error()
		return r
	}
	r.AfterNew, _ = readMemory(p.cmd.Process.Pid)
	var per []time.Duration
	for k := range n {
		f, sent, err := prompt(p, sid, fmt.Sprintf("Turn %d: explain the next part of the design.", k+1))
		if err != nil {
			r.Err = err.Error()
			return r
		}
		if !bytes.Contains(f.Result, []byte("end_turn")) {
			r.Err = fmt.Sprintf("turn %d: %s%s", k+1, f.Result, p.stderrTail())
			return r
		}
		per = append(per, f.at.Sub(sent))
		r.Turns++
	}
	r.AfterTurns, _ = readMemory(p.cmd.Process.Pid)
	r.TurnMedian = median(per)
	return r
}

// ---- streaming throughput

type streamRun struct {
	Path    string        `json:"path"` // replay, sse, relay
	Deltas  int64         `json:"deltas"`
	Bytes   int64         `json:"bytes"` // session/update bytes on stdout
	Elapsed time.Duration `json:"elapsedNs"`
	Err     string        `json:"error,omitempty"`
}

func chunkCounter(p *proc) (*int64, *int64) {
	var n, b int64
	p.onUpdate = func(line []byte, _ time.Time) {
		if bytes.Contains(line, []byte(`"agent_message_chunk"`)) {
			n++
			b += int64(len(line))
		}
	}
	return &n, &b
}

func streamBench(o *options) error {
	fixture := filepath.Join(o.tmp, "fixture-stream")
	var ds []string
	for i := range o.deltas {
		ds = append(ds, deltaText(i))
	}
	if err := writeTextFixture(fixture, []turn{{prompt: "Stream.", deltas: ds}}); err != nil {
		return err
	}
	m := newModel()
	defer m.srv.Close()
	var runs []streamRun
	for i := range o.warmup + o.n {
		for _, path := range []string{"replay", "sse", "relay"} {
			var r streamRun
			switch path {
			case "replay":
				r = streamOnce(o, func(e *cordisEnv) (*proc, error) { return replayCordis(o, e, fixture) })
			case "sse":
				m.set("stream", o.deltas, 0)
				r = streamOnce(o, func(e *cordisEnv) (*proc, error) { return liveCordis(o, e, m) })
			case "relay":
				m.set("stream", o.deltas, 0)
				r = relayOnce(o, m)
			}
			r.Path = path
			if r.Err == "" && r.Deltas != int64(o.deltas) {
				r.Err = fmt.Sprintf("saw %d of %d deltas", r.Deltas, o.deltas)
			}
			if r.Err != "" {
				fmt.Fprintf(os.Stderr, "stream %s: %s\n", path, r.Err)
			}
			if i >= o.warmup {
				runs = append(runs, r)
			}
		}
	}
	return writeJSON(o, "stream", runs)
}

func streamOnce(o *options, start func(*cordisEnv) (*proc, error)) streamRun {
	var r streamRun
	e, err := newCordisEnv(o)
	if err != nil {
		r.Err = err.Error()
		return r
	}
	defer e.remove()
	p, err := start(e)
	if err != nil {
		r.Err = err.Error()
		return r
	}
	defer p.stop()
	sid, err := openSession(p, e.work)
	if err != nil {
		r.Err = err.Error()
		return r
	}
	n, b := chunkCounter(p)
	f, sent, err := prompt(p, sid, "Stream.")
	if err != nil {
		r.Err = err.Error()
		return r
	}
	if !bytes.Contains(f.Result, []byte("end_turn")) {
		r.Err = string(f.Result) + p.stderrTail()
	}
	r.Elapsed, r.Deltas, r.Bytes = f.at.Sub(sent), *n, *b
	return r
}

func relayOnce(o *options, m *model) streamRun {
	var r streamRun
	dir, err := os.MkdirTemp(o.tmp, "relay-")
	if err != nil {
		r.Err = err.Error()
		return r
	}
	defer os.RemoveAll(dir)
	p, err := spawn("relay", []string{o.relay, m.srv.URL + "/v1/messages"}, dir, nil, filepath.Join(dir, "stderr"))
	if err != nil {
		r.Err = err.Error()
		return r
	}
	defer p.stop()
	n, b := chunkCounter(p)
	f, sent, err := p.call("session/prompt", map[string]any{}, 10*time.Minute)
	if err != nil {
		r.Err = err.Error()
		return r
	}
	r.Elapsed, r.Deltas, r.Bytes = f.at.Sub(sent), *n, *b
	return r
}

// ---- latency: paced deltas, server write to frame read

type latencyRun struct {
	Path      string          `json:"path"` // sse, relay
	Latencies []time.Duration `json:"latenciesNs"`
	Err       string          `json:"error,omitempty"`
}

func latencyRecorder(p *proc, n int) func() []time.Time {
	var mu sync.Mutex
	got := make([]time.Time, n)
	key := []byte(`"text":"d`)
	p.onUpdate = func(line []byte, at time.Time) {
		i := bytes.Index(line, key)
		if i < 0 || len(line) < i+len(key)+6 {
			return
		}
		k, err := strconv.Atoi(string(line[i+len(key) : i+len(key)+6]))
		if err != nil || k >= n {
			return
		}
		mu.Lock()
		got[k] = at
		mu.Unlock()
	}
	return func() []time.Time {
		mu.Lock()
		defer mu.Unlock()
		return append([]time.Time(nil), got...)
	}
}

func latencyBench(o *options) error {
	m := newModel()
	defer m.srv.Close()
	var runs []latencyRun
	for i := range o.warmup + o.n {
		for _, path := range []string{"sse", "relay"} {
			r := latencyOnce(o, m, path)
			r.Path = path
			if r.Err != "" {
				fmt.Fprintf(os.Stderr, "latency %s: %s\n", path, r.Err)
			}
			if i >= o.warmup {
				runs = append(runs, r)
			}
		}
	}
	return writeJSON(o, "latency", runs)
}

func latencyOnce(o *options, m *model, path string) latencyRun {
	var r latencyRun
	e, err := newCordisEnv(o)
	if err != nil {
		r.Err = err.Error()
		return r
	}
	defer e.remove()
	m.set("paced", o.paced, o.gap)
	var p *proc
	var sid string
	if path == "sse" {
		if p, err = liveCordis(o, e, m); err == nil {
			sid, err = openSession(p, e.work)
		}
	} else {
		p, err = spawn("relay", []string{o.relay, m.srv.URL + "/v1/messages"}, e.work, nil, filepath.Join(e.home, "stderr"))
	}
	if p != nil {
		defer p.stop()
	}
	if err != nil {
		r.Err = err.Error()
		return r
	}
	recv := latencyRecorder(p, o.paced)
	if path == "sse" {
		_, _, err = prompt(p, sid, "Stream slowly.")
	} else {
		_, _, err = p.call("session/prompt", map[string]any{}, 10*time.Minute)
	}
	if err != nil {
		r.Err = err.Error()
		return r
	}
	sent, got := m.sentTimes(), recv()
	for i := range sent {
		if got[i].IsZero() || sent[i].IsZero() {
			r.Err = fmt.Sprintf("delta %d was not seen", i)
			return r
		}
		r.Latencies = append(r.Latencies, got[i].Sub(sent[i]))
	}
	return r
}

// ---- session/load of a long log

type loadRun struct {
	Events  int           `json:"events"`
	Turns   int           `json:"turns"`
	Load    time.Duration `json:"loadNs"`  // session/load sent to its response
	Total   time.Duration `json:"totalNs"` // spawn to the session/load response
	Updates int64         `json:"updates"` // session/update frames before the response
	Memory  memory        `json:"memory"`
	Err     string        `json:"error,omitempty"`
}

// makeLog drives cordis through tool-using turns (a Read call, then an
// answer) against the local model until its session log holds at least
// events events. It returns the state directory, the session and the cwd.
func makeLog(o *options, events int) (state, sid, work string, count, turns int, err error) {
	m := newModel()
	defer m.srv.Close()
	e, err := newCordisEnv(o)
	if err != nil {
		return
	}
	notes := filepath.Join(e.work, "notes.txt")
	if err = os.WriteFile(notes, []byte(strings.Repeat("A line of project notes for the benchmark.\n", 40)), 0o644); err != nil {
		return
	}
	m.mu.Lock()
	m.mode, m.file = "tools", notes
	m.mu.Unlock()
	p, err := liveCordis(o, e, m)
	if err != nil {
		return
	}
	defer p.stop()
	if sid, err = openSession(p, e.work); err != nil {
		return
	}
	log := filepath.Join(e.state, "sessions", sid+".jsonl")
	for k := 0; ; k++ {
		var f *frame
		if f, _, err = prompt(p, sid, fmt.Sprintf("Turn %d: read the notes and summarize them.", k+1)); err != nil {
			return
		}
		if !bytes.Contains(f.Result, []byte("end_turn")) {
			err = fmt.Errorf("turn %d: %s%s", k+1, f.Result, p.stderrTail())
			return
		}
		data, rerr := os.ReadFile(log)
		if rerr != nil {
			err = rerr
			return
		}
		if count = bytes.Count(data, []byte("\n")); count >= events {
			turns = k + 1
			break
		}
	}
	return e.state, sid, e.work, count, turns, nil
}

func loadBench(o *options) error {
	state, sid, work, count, turns, err := makeLog(o, o.events)
	if err != nil {
		return fmt.Errorf("making the log: %w", err)
	}
	var runs []loadRun
	for i := range o.warmup + o.n {
		r := loadOnce(o, state, sid, work)
		r.Events, r.Turns = count, turns
		if r.Err != "" {
			fmt.Fprintln(os.Stderr, "load:", r.Err)
		}
		if i >= o.warmup {
			runs = append(runs, r)
		}
	}
	return writeJSON(o, "load", runs)
}

func loadOnce(o *options, state, sid, work string) loadRun {
	var r loadRun
	e, err := newCordisEnv(o)
	if err != nil {
		r.Err = err.Error()
		return r
	}
	defer e.remove()
	if err := copyTree(state, e.state); err != nil {
		r.Err = err.Error()
		return r
	}
	argv := []string{o.cordis, "acp", "--state-dir", e.state}
	env := []string{"HOME=" + e.home, "XDG_CONFIG_HOME=" + filepath.Join(e.home, ".config"),
		"ANTHROPIC_API_KEY=bench-dummy-key", "ANTHROPIC_BASE_URL=" + dead}
	p, err := spawn("cordis", argv, work, env, filepath.Join(e.home, "stderr"))
	if err != nil {
		r.Err = err.Error()
		return r
	}
	defer p.stop()
	if _, _, err := p.call("initialize", initializeParams(), time.Minute); err != nil {
		r.Err = err.Error()
		return r
	}
	before := p.updates.Load()
	f, sent, err := p.call("session/load", map[string]any{"sessionId": sid, "cwd": work, "mcpServers": []any{}}, time.Minute)
	if err != nil {
		r.Err = err.Error()
		return r
	}
	r.Load, r.Total = f.at.Sub(sent), f.at.Sub(p.start)
	r.Updates = p.updates.Load() - before
	r.Memory, _ = readMemory(p.cmd.Process.Pid)
	return r
}

// copyTree copies a file or a directory tree, keeping permission bits
// (hook scripts are executable) and symbolic links.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		info, err := os.Lstat(path)
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, info.Mode().Perm()|0o700)
		case info.Mode()&os.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			os.MkdirAll(filepath.Dir(target), 0o755)
			return os.Symlink(link, target)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.WriteFile(target, data, info.Mode().Perm())
	})
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func percentile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(q * float64(len(s)-1))
	return s[i]
}
