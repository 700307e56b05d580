package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"
)

// agent is one program compared in the cold-start benchmark.
type agent struct {
	name string
	// argv and env for a fresh home directory and workspace.
	command func(home, work string) (argv, env []string)
	// auth, when set, is the authenticate methodId sent before
	// session/new (the agent refuses session/new without it).
	auth string
	// prepare lays out home before the spawn (not timed).
	prepare func(home string) error
}

// dead is an endpoint nothing listens on: agents that try the network at
// start-up fail fast and the same way on every machine.
const dead = "http://127.0.0.1:9"

func agents(o *options) []agent {
	var out []agent
	out = append(out, agent{name: "floor", command: func(home, work string) ([]string, []string) {
		return []string{o.floor}, nil
	}})
	for _, c := range []struct{ name, bin string }{{"cordis", o.cordis}, {"cordis (static)", o.static}} {
		if c.bin == "" {
			continue
		}
		out = append(out, agent{name: c.name, command: func(home, work string) ([]string, []string) {
			return []string{c.bin, "acp", "--state-dir", filepath.Join(home, "state")},
				[]string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "ANTHROPIC_API_KEY=bench-dummy-key", "ANTHROPIC_BASE_URL=" + dead}
		}})
	}
	if o.codex != "" {
		out = append(out, agent{name: "codex-acp", auth: "codex-api-key",
			prepare: func(home string) error { return os.MkdirAll(filepath.Join(home, ".codex"), 0o755) },
			command: func(home, work string) ([]string, []string) {
				return []string{o.codex}, []string{"HOME=" + home, "CODEX_HOME=" + filepath.Join(home, ".codex"),
					"CODEX_API_KEY=bench-dummy-key", "OPENAI_API_KEY=bench-dummy-key", "OPENAI_BASE_URL=" + dead + "/v1"}
			}})
	}
	if o.claude != "" {
		out = append(out, agent{name: "claude-agent-acp", command: func(home, work string) ([]string, []string) {
			env := []string{"HOME=" + home, "ANTHROPIC_API_KEY=bench-dummy-key", "ANTHROPIC_BASE_URL=" + dead,
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1"}
			if os.Geteuid() == 0 {
				// Claude Code refuses its permission-bypass flag as root
				// unless told it runs in a sandbox (containers, CI).
				env = append(env, "IS_SANDBOX=1")
			}
			return []string{o.node, o.claude}, env
		}})
	}
	return out
}

// coldRun is one spawn of one agent.
type coldRun struct {
	Init   time.Duration `json:"initNs"`
	New    time.Duration `json:"newNs"` // spawn to the session/new response
	Memory memory        `json:"memory"`
	Err    string        `json:"error,omitempty"`
}

type coldResult struct {
	Agent string    `json:"agent"`
	Runs  []coldRun `json:"runs"`
}

func initializeParams() map[string]any {
	return map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{
		"fs": map[string]any{"readTextFile": false, "writeTextFile": false}, "terminal": false}}
}

func coldOnce(o *options, a agent) coldRun {
	var r coldRun
	home, err := os.MkdirTemp(o.tmp, "home-")
	if err != nil {
		r.Err = err.Error()
		return r
	}
	defer os.RemoveAll(home)
	work := filepath.Join(home, "work")
	os.MkdirAll(work, 0o755)
	if a.prepare != nil {
		if err := a.prepare(home); err != nil {
			r.Err = err.Error()
			return r
		}
	}
	argv, env := a.command(home, work)
	p, err := spawn(a.name, argv, work, env, filepath.Join(home, "stderr"))
	if err != nil {
		r.Err = err.Error()
		return r
	}
	defer p.stop()
	f, _, err := p.call("initialize", initializeParams(), 60*time.Second)
	if err != nil {
		r.Err = err.Error()
		return r
	}
	r.Init = f.at.Sub(p.start)
	if a.auth != "" {
		if _, _, err := p.call("authenticate", map[string]any{"methodId": a.auth}, 60*time.Second); err != nil {
			r.Err = err.Error()
			return r
		}
	}
	f, _, err = p.call("session/new", map[string]any{"cwd": work, "mcpServers": []any{}}, 60*time.Second)
	if err != nil {
		r.Err = err.Error()
		return r
	}
	r.New = f.at.Sub(p.start)
	r.Memory, _ = readMemory(p.cmd.Process.Pid)
	return r
}

// exitRun is a program that does no ACP work, timed from spawn to exit:
// what process start and package initialization cost by themselves.
type exitRun struct {
	Name string          `json:"name"`
	Runs []time.Duration `json:"runsNs"`
}

// exitProgram is a program timed from spawn to exit.
type exitProgram struct {
	name string
	argv []string
}

func exits(o *options) []exitProgram {
	out := []exitProgram{
		{"floor (stdin at EOF)", []string{o.floor}},
		{"relay without arguments (Go + net/http)", []string{o.relay}},
		{"cordis version", []string{o.cordis, "version"}},
	}
	if o.static != "" {
		out = append(out, exitProgram{"cordis (static) version", []string{o.static, "version"}})
	}
	return out
}

func exitOnce(argv []string) time.Duration {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	start := time.Now()
	cmd.Run() // the relay exits 2 on purpose
	return time.Since(start)
}

// coldstart spawns every agent n times (after warm-up runs), interleaved
// round-robin with a rotating order, so that load from other users of the
// machine falls on all of them alike; the programs of exits run in the
// same rounds. When peers take part, cordis and the floor are then
// measured again in rounds of their own (coldstart-alone): waiting for a
// peer to end (seconds for claude-agent-acp) leaves the next spawn on idle
// cores, which on a virtual machine costs a cold program milliseconds;
// the start-up targets are checked against these rounds.
func coldstart(o *options) error {
	as := agents(o)
	ex := exits(o)
	results, exitResults := coldRounds(o, as, ex)
	if err := writeJSON(o, "startup", exitResults); err != nil {
		return err
	}
	if err := writeJSON(o, "coldstart", results); err != nil {
		return err
	}
	own := slices.DeleteFunc(slices.Clone(as), func(a agent) bool {
		return a.name != "floor" && a.name != "cordis" && a.name != "cordis (static)"
	})
	if len(own) == len(as) {
		return nil
	}
	alone, _ := coldRounds(o, own, nil)
	return writeJSON(o, "coldstart-alone", alone)
}

// coldRounds runs the rounds of coldstart for as and ex.
func coldRounds(o *options, as []agent, ex []exitProgram) ([]coldResult, []exitRun) {
	results := make([]coldResult, len(as))
	for i, a := range as {
		results[i].Agent = a.name
	}
	exitResults := make([]exitRun, len(ex))
	for round := range o.warmup + o.n {
		for k := range as {
			i := (k + round) % len(as)
			r := coldOnce(o, as[i])
			if r.Err != "" {
				fmt.Fprintf(os.Stderr, "coldstart %s: %s\n", as[i].name, r.Err)
			}
			if round >= o.warmup {
				results[i].Runs = append(results[i].Runs, r)
			}
		}
		for i, e := range ex {
			exitResults[i].Name = e.name
			if d := exitOnce(e.argv); round >= o.warmup {
				exitResults[i].Runs = append(exitResults[i].Runs, d)
			}
		}
	}
	return results, exitResults
}
