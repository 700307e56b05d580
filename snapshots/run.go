package snapshots

import (
	"fmt"
	"golang.org/x/sys/unix"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/cordis-agent/cordis/acp/acptest"
	"github.com/cordis-agent/cordis/llm/replay"
)

// Options configure one run of a scenario.
type Options struct {
	// Binary is the cordis binary.
	Binary string
	// Repo is the repository root (the agent's working directory, where
	// cordis.snapshot.yml lives).
	Repo string
	// Mode is replay.ModeReplay or replay.ModeRecord.
	Mode string
	// CheckSidecars makes the provider compare system prompts and tools
	// with the expected sidecars (replay; not -update, not record).
	CheckSidecars bool
	// Env is added to the agent's environment (record mode passes the key
	// and the endpoint here; nothing else ever does).
	Env []string
	// TempDir is where the run's directories are made (default os.TempDir).
	TempDir string
	// Keep leaves the run's directories in place (for debugging).
	Keep bool
	// Observer, when set, sees every frame as it passes.
	Observer Observer
	// MCPTestServer is the built test MCP server (package MCPTestServerPkg,
	// see BuildMCPTestServer) that {{mcptestserver}} in a manifest's
	// mcpServers stands for; required by the scenarios that use it.
	MCPTestServer string
}

// Result is everything one run produced, before normalization.
type Result struct {
	Frames []Frame
	// Logs are the session logs in the order their sessions appeared,
	// each followed by its subagents' logs.
	Logs []Log
	// Observed are the sidecars the provider wrote (file name -> content).
	Observed map[string][]byte
	// Workspace is the final workspace (relative path -> content), when
	// the manifest compares it.
	Workspace map[string][]byte
	Ledger    *replay.Ledger
	// Problems are harness-level failures: non-JSON stdout, unanswered
	// permission requests, timeouts, crashes.
	Problems []string
	// Paths are the run's temporary directories and their placeholders.
	Paths []replay.PathVar
	// Recording is what record mode recorded (path under the fixture
	// folder -> content).
	Recording map[string][]byte
	// RunDir is the provider's run directory; it is removed when the run
	// ends unless Keep is set.
	RunDir string
	// Stderr is what the agent processes wrote to stderr.
	Stderr string
	// Cordis is the output of each cordis step, in order.
	Cordis [][]byte
}

// Log is one session or subagent log file.
type Log struct {
	SessionID string
	AgentID   string // "" for the session's own log
	Data      []byte
}

type runDirs struct {
	root, workspace, state, home, tmp, run string
}

// Run plays the scenario once against a fresh agent and returns what it
// produced. The returned error is a set-up failure; problems during the
// run are in Result.Problems.
func Run(sc *Scenario, opts Options) (*Result, error) {
	if opts.Mode == "" {
		opts.Mode = replay.ModeReplay
	}
	p := &player{sc: sc, opts: opts}
	root, err := os.MkdirTemp(opts.TempDir, "cordis-snapshot-")
	if err != nil {
		return nil, err
	}
	if !opts.Keep {
		defer os.RemoveAll(root)
	}
	d := runDirs{root: root}
	for _, dir := range []struct {
		p    *string
		name string
	}{{&d.workspace, "workspace"}, {&d.state, "state"}, {&d.home, "home"}, {&d.tmp, "tmp"}, {&d.run, "run"}} {
		*dir.p = filepath.Join(root, dir.name)
		if err := os.MkdirAll(*dir.p, 0o755); err != nil {
			return nil, err
		}
	}
	p.dirs = d
	if err := copyTree(filepath.Join(sc.Dir, "workspace"), d.workspace); err != nil {
		return nil, fmt.Errorf("copying the workspace: %w", err)
	}
	// User-level files, such as hook configs (~/.claude/settings.json,
	// ~/.codex/hooks.json) and the scripts they run.
	if err := copyTree(filepath.Join(sc.Dir, "home"), d.home); err != nil {
		return nil, fmt.Errorf("copying home: %w", err)
	}
	mcpServer := ""
	if sc.Manifest.UsesMCPTestServer() {
		if mcpServer, err = mcpTestServer(sc, opts); err != nil {
			return nil, err
		}
	}
	web, stopWeb, err := startWebServer(sc)
	if err != nil {
		return nil, fmt.Errorf("serving %s: %w", WebDir, err)
	}
	defer stopWeb()
	paths := []replay.PathVar{
		{Placeholder: "{{cwd}}", Path: d.workspace},
		{Placeholder: "{{state}}", Path: d.state},
		{Placeholder: "{{home}}", Path: d.home},
		{Placeholder: "{{tmp}}", Path: d.tmp},
		{Placeholder: "{{run}}", Path: d.run},
		{Placeholder: "{{root}}", Path: d.root},
		{Placeholder: "{{scenario}}", Path: sc.Dir},
		{Placeholder: "{{fixture}}", Path: sc.Fixture},
		{Placeholder: "{{repo}}", Path: opts.Repo},
		// The sandbox's helper is the binary itself, which an editor
		// terminal is asked to run.
		{Placeholder: "{{cordis}}", Path: opts.Binary},
		// The facts the model is told of the day and the machine.
		{Placeholder: "{{date}}", Path: time.Now().Format("2006-01-02 (Monday)")},
		{Placeholder: "{{os}}", Path: osVersion()},
		{Placeholder: MCPTestServerPlaceholder, Path: mcpServer},
		// A URL, not a path, but replaced the same way: whole, where it
		// stands.
		{Placeholder: WebPlaceholder, Path: web},
	}
	run := replay.Run{Mode: opts.Mode, Paths: paths}
	if opts.CheckSidecars {
		run.Expected = sc.ExpectedDir()
	}
	if err := replay.WriteRun(d.run, run); err != nil {
		return nil, err
	}
	p.configPath = filepath.Join(opts.Repo, "cordis.snapshot.yml")
	if sc.Manifest.Config != "" {
		p.configPath = filepath.Join(sc.Dir, sc.Manifest.Config)
	}
	p.paths = replay.NewPathReplacer(paths)
	p.env = agentEnv(sc, opts, d, p.paths.Expand)
	p.terms = &acptest.Terminals{Env: p.env}

	p.play()
	if obs := opts.Observer; obs != nil {
		p.observe(func() {
			p.pollLogs(obs)
			obs.Done()
		})
	}

	res := &Result{Paths: paths, RunDir: d.run}
	p.mu.Lock()
	res.Frames = append(res.Frames, p.frames...)
	res.Problems = append(res.Problems, p.problems...)
	res.Cordis = append(res.Cordis, p.cordisOut...)
	sessions := append([]string(nil), p.sessions...)
	p.mu.Unlock()
	if res.Ledger, err = replay.ReadLedger(d.run); err != nil {
		res.Problems = append(res.Problems, err.Error())
	}
	if res.Logs, err = readLogs(d.state, sessions); err != nil {
		res.Problems = append(res.Problems, err.Error())
	}
	if res.Observed, err = readFlat(filepath.Join(d.run, replay.ObservedDir)); err != nil {
		res.Problems = append(res.Problems, err.Error())
	}
	if sc.Manifest.Compare.Workspace {
		if res.Workspace, err = readTree(d.workspace); err != nil {
			res.Problems = append(res.Problems, err.Error())
		}
	}
	for i := 1; i <= p.processes; i++ {
		if data, err := os.ReadFile(filepath.Join(root, fmt.Sprintf("agent-%d.log", i))); err == nil {
			res.Stderr += string(data)
		}
	}
	if opts.Mode == replay.ModeRecord {
		if res.Recording, err = readTree(filepath.Join(d.run, replay.RecordDir)); err != nil {
			res.Problems = append(res.Problems, "reading the recording: "+err.Error())
		}
	}
	return res, nil
}

// agentEnv is the agent's whole environment: nothing of the developer's
// but PATH (no key, no proxy, no config or state of theirs). The
// manifest's env values have their placeholders expanded.
func agentEnv(sc *Scenario, opts Options, d runDirs, expand func(string) string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + d.home,
		"TMPDIR=" + d.tmp,
		"XDG_CONFIG_HOME=" + filepath.Join(d.home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(d.home, ".local", "state"),
		"XDG_CACHE_HOME=" + filepath.Join(d.home, ".cache"),
		"LC_ALL=C.UTF-8",
		"TZ=UTC",
		"CORDIS_FIXTURE=" + sc.Fixture,
		replay.RunDirEnv + "=" + d.run,
		"CORDIS_REPO=" + opts.Repo,
		"CORDIS_SCENARIO=" + sc.Dir,
	}
	keys := make([]string, 0, len(sc.Manifest.Env))
	for k := range sc.Manifest.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+expand(sc.Manifest.Env[k]))
	}
	return append(env, opts.Env...)
}

// osVersion is the kernel's name and release, as the model is told them.
func osVersion() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return ""
	}
	return unix.ByteSliceToString(u.Sysname[:]) + " " + unix.ByteSliceToString(u.Release[:])
}
