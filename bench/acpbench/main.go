package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

type options struct {
	out    string // results folder
	tmp    string // scratch folder
	repo   string // the cordis checkout (cordis.snapshot.yml)
	cordis string
	static string // cordis built with CGO_ENABLED=0 ("" skips it)
	floor  string
	relay  string
	codex  string // native codex-acp binary ("" skips it)
	claude string // claude-agent-acp dist/index.js ("" skips it)
	node   string
	npm    string // the npm prefix the peers are installed in, for the report
	keep   bool   // keep the scratch folder

	n, warmup int
	turns     int           // memory: turns of the replayed session
	deltas    int           // stream: deltas per run
	paced     int           // latency: deltas per run
	gap       time.Duration // latency: time between deltas
	events    int           // load: events in the log
	trees     string        // tools: name=dir,... trees to search
	bigfile   string        // tools: a big file to Grep and Read ("" skips)
	rg        string        // tools: the ripgrep binary
	only      string        // tools: a regexp the case names must match ("" all)
}

func main() {
	o := &options{}
	flag.StringVar(&o.out, "out", "bench/results", "results folder")
	flag.StringVar(&o.repo, "repo", ".", "the cordis checkout")
	flag.StringVar(&o.cordis, "cordis", "", "cordis binary")
	flag.StringVar(&o.static, "static", "", "cordis built with CGO_ENABLED=0 (empty: skip)")
	flag.StringVar(&o.floor, "floor", "", "floor binary (bench/floor)")
	flag.StringVar(&o.relay, "relay", "", "relay binary (bench/relay)")
	flag.StringVar(&o.codex, "codex", "", "codex-acp native binary (empty: skip)")
	flag.StringVar(&o.claude, "claude", "", "claude-agent-acp dist/index.js (empty: skip)")
	flag.StringVar(&o.node, "node", "node", "node binary")
	flag.StringVar(&o.npm, "npm", "", "npm prefix holding the peers (report: their versions)")
	flag.BoolVar(&o.keep, "keep", false, "keep the scratch folder (its path is printed)")
	flag.IntVar(&o.n, "n", 20, "measured runs")
	flag.IntVar(&o.warmup, "warmup", 2, "discarded runs before measuring")
	flag.IntVar(&o.turns, "turns", 50, "memory: turns of the replayed session")
	flag.IntVar(&o.deltas, "deltas", 100000, "stream: text deltas per run")
	flag.IntVar(&o.paced, "paced", 500, "latency: deltas per run")
	flag.DurationVar(&o.gap, "gap", time.Millisecond, "latency: time between deltas")
	flag.IntVar(&o.events, "events", 10000, "load: events in the session log")
	flag.StringVar(&o.trees, "trees", "", "tools: name=dir,... trees to search")
	flag.StringVar(&o.bigfile, "bigfile", "", "tools: a big file to Grep and Read (empty: skip)")
	flag.StringVar(&o.rg, "rg", "rg", "tools: the ripgrep binary")
	flag.StringVar(&o.only, "only", "", "tools: run only the cases whose tree/name match this regexp")
	flag.Parse()
	if err := run(o, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "acpbench:", err)
		os.Exit(1)
	}
}

func run(o *options, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("no benchmark named (coldstart, memory, stream, latency, load, tools, time, report)")
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	for _, p := range []*string{&o.repo, &o.cordis, &o.static, &o.floor, &o.relay, &o.codex, &o.claude} {
		if *p != "" {
			abs, err := filepath.Abs(*p)
			if err != nil {
				return err
			}
			*p = abs
		}
	}
	switch args[0] {
	case "report":
		return report(o)
	case "snaptree":
		if len(args) != 3 {
			return fmt.Errorf("usage: acpbench -repo DIR snaptree N DEST")
		}
		n, err := strconv.Atoi(args[1])
		if err != nil {
			return err
		}
		return snapTree(o, n, args[2])
	case "time":
		if len(args) < 4 || args[2] != "--" {
			return fmt.Errorf("usage: acpbench time NAME -- command args...")
		}
		return timeCommand(o, args[1], args[3:])
	}
	tmp, err := os.MkdirTemp("", "acpbench-")
	if err != nil {
		return err
	}
	if o.keep {
		fmt.Fprintln(os.Stderr, "acpbench: keeping", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	o.tmp = tmp
	for _, name := range args {
		start := time.Now()
		var err error
		switch name {
		case "coldstart":
			err = coldstart(o)
		case "memory":
			err = memoryBench(o)
		case "stream":
			err = streamBench(o)
		case "latency":
			err = latencyBench(o)
		case "load":
			err = loadBench(o)
		case "tools":
			err = toolsBench(o)
		default:
			err = fmt.Errorf("unknown benchmark %q", name)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		fmt.Fprintf(os.Stderr, "acpbench: %s done in %s\n", name, time.Since(start).Round(time.Millisecond))
	}
	return nil
}

func writeJSON(o *options, name string, v any) error {
	data, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(o.out, name+".json"), append(data, '\n'), 0o644)
}

func readJSON(o *options, name string, v any) bool {
	data, err := os.ReadFile(filepath.Join(o.out, name+".json"))
	return err == nil && json.Unmarshal(data, v) == nil
}

func jsonUnmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }

// timed is a command run n times.
type timed struct {
	Name    string          `json:"name"`
	Command []string        `json:"command"`
	Runs    []time.Duration `json:"runsNs"`
	Failed  int             `json:"failed"`
}

// timeCommand runs argv o.warmup+o.n times (stdout and stderr to
// NAME.log) and records the wall time of each measured run.
func timeCommand(o *options, name string, argv []string) error {
	logf, err := os.Create(filepath.Join(o.out, name+".log"))
	if err != nil {
		return err
	}
	defer logf.Close()
	t := timed{Name: name, Command: argv}
	for i := range o.warmup + o.n {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Stdout, cmd.Stderr = logf, logf
		start := time.Now()
		err := cmd.Run()
		d := time.Since(start)
		if err != nil {
			t.Failed++
			fmt.Fprintf(os.Stderr, "acpbench time %s: run %d: %v (see %s.log)\n", name, i+1, err, name)
		}
		if i >= o.warmup {
			t.Runs = append(t.Runs, d)
		}
	}
	return writeJSON(o, name, t)
}
