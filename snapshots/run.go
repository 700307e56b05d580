package snapshots

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/cordis-agent/cordis/llm/replay"
)

// Scenario is one folder under snapshots/.
type Scenario struct {
	Name     string
	Dir      string // snapshots/<name>
	Fixture  string // fixtures/<name>
	Repo     string // the repository root
	Manifest *Manifest
}

// ExpectedDir is where the scenario's expected files live.
func (s *Scenario) ExpectedDir() string { return filepath.Join(s.Dir, "expected") }

// LoadScenario reads snapshots/<name> of the repository at repo.
func LoadScenario(repo, name string) (*Scenario, error) {
	s := &Scenario{
		Name:    name,
		Dir:     filepath.Join(repo, "snapshots", name),
		Fixture: filepath.Join(repo, "fixtures", name),
		Repo:    repo,
	}
	m, err := LoadManifest(filepath.Join(s.Dir, ManifestFile))
	if err != nil {
		return nil, err
	}
	s.Manifest = m
	return s, nil
}

// ScenarioNames lists the scenario folders (those holding a manifest) and,
// separately, every other folder under snapshots/ (testdata excepted).
func ScenarioNames(repo string) (scenarios, strays []string, err error) {
	entries, err := os.ReadDir(filepath.Join(repo, "snapshots"))
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "testdata" {
			continue
		}
		if _, err := os.Stat(filepath.Join(repo, "snapshots", e.Name(), ManifestFile)); err == nil {
			scenarios = append(scenarios, e.Name())
		} else {
			strays = append(strays, e.Name())
		}
	}
	return scenarios, strays, nil
}

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
	// MCPTestServer is the built test MCP server (package MCPTestServerPkg)
	// that {{mcptestserver}} in a manifest's mcpServers stands for. When
	// empty, one next to Binary is used, or else it is built for the run.
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

// player runs one scenario: the agent processes and the editor.
type player struct {
	sc         *Scenario
	opts       Options
	dirs       runDirs
	configPath string
	env        []string
	paths      *replay.PathReplacer // expands placeholders in mcpServers
	terms      *terminals

	mu            sync.Mutex
	processes     int
	frames        []Frame
	problems      []string
	sessions      []string
	current       string // the latest session
	permissions   []string
	cancelWhen    *FrameMatch
	cancelSession string
	cancelFired   bool
	// during is the armed during of the current prompt: the first
	// request matching during.When is held while its steps run, then
	// answered; duringDone is closed when that is over.
	during      *DuringSpec
	duringFired bool
	duringDone  chan struct{}

	omu        sync.Mutex       // serializes Observer calls
	logOffsets map[string]int64 // log file -> bytes already observed (omu)
}

// pollLogs hands the observer the session log lines written since the
// last poll (omu held).
func (p *player) pollLogs(obs Observer) {
	if p.logOffsets == nil {
		p.logOffsets = map[string]int64{}
	}
	dir := filepath.Join(p.dirs.state, "sessions")
	var files []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.HasSuffix(path, ".jsonl") && !strings.HasSuffix(path, "transcript.jsonl") {
			files = append(files, path)
		}
		return nil
	})
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil || int64(len(data)) <= p.logOffsets[f] {
			continue
		}
		chunk := data[p.logOffsets[f]:]
		end := strings.LastIndexByte(string(chunk), '\n')
		if end < 0 {
			continue
		}
		p.logOffsets[f] += int64(end + 1)
		rel, _ := filepath.Rel(dir, f)
		session, agent := strings.TrimSuffix(rel, ".jsonl"), ""
		if parts := strings.Split(filepath.ToSlash(rel), "/"); len(parts) == 3 {
			session, agent = parts[0], strings.TrimSuffix(parts[2], ".jsonl")
		}
		for _, line := range strings.Split(string(chunk[:end]), "\n") {
			if line != "" {
				obs.Logged(session, agent, []byte(line))
			}
		}
	}
}

func (p *player) problem(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.problems = append(p.problems, fmt.Sprintf(format, args...))
}

func (p *player) observe(f func()) {
	p.omu.Lock()
	defer p.omu.Unlock()
	f()
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
	if sc.Manifest.usesMCPTestServer() {
		if mcpServer, err = findMCPTestServer(opts, d.root); err != nil {
			return nil, err
		}
	}
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
		{Placeholder: MCPTestServerPlaceholder, Path: mcpServer},
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
	p.env = agentEnv(sc, opts, d)
	p.terms = &terminals{env: p.env}

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
// but PATH (no key, no proxy, no config or state of theirs).
func agentEnv(sc *Scenario, opts Options, d runDirs) []string {
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
		env = append(env, k+"="+sc.Manifest.Env[k])
	}
	return append(env, opts.Env...)
}

// play runs the manifest's steps; the first failing step ends the run.
func (p *player) play() {
	m := p.sc.Manifest
	a, err := p.start()
	if err != nil {
		p.problem("%v", err)
		return
	}
	defer func() { a.stop(false) }()
	caps := ClientSpec{FS: true, Terminal: true}
	if m.Client != nil {
		caps = *m.Client
	}
	for i, st := range m.Steps {
		if err := p.step(&a, st, caps); err != nil {
			p.problem("step %d: %v", i+1, err)
			return
		}
	}
}

func (p *player) sessionAt(n int) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n == 0 {
		if p.current == "" {
			return "", errors.New("no session yet")
		}
		return p.current, nil
	}
	if n > len(p.sessions) {
		return "", fmt.Errorf("no session %d (%d created)", n, len(p.sessions))
	}
	return p.sessions[n-1], nil
}

func (p *player) step(ap **agentProc, st Step, caps ClientSpec) error {
	a := *ap
	switch {
	case st.Initialize != nil:
		_, err := a.call("initialize", map[string]any{
			"protocolVersion": 1,
			"clientCapabilities": map[string]any{
				"fs":       map[string]bool{"readTextFile": caps.FS, "writeTextFile": caps.FS},
				"terminal": caps.Terminal,
			},
			"clientInfo": map[string]string{"name": "cordis-snapshots", "version": "1"},
		})
		return err
	case st.NewSession != nil:
		raw, err := a.call("session/new", map[string]any{"cwd": p.dirs.workspace, "mcpServers": p.mcpServers(st.NewSession.MCPServers)})
		if err != nil {
			return err
		}
		var resp struct {
			SessionID string `json:"sessionId"`
		}
		if err := json.Unmarshal(raw, &resp); err != nil || resp.SessionID == "" {
			return fmt.Errorf("session/new answered without a sessionId: %s", raw)
		}
		p.mu.Lock()
		p.sessions = append(p.sessions, resp.SessionID)
		p.current = resp.SessionID
		p.mu.Unlock()
		return nil
	case st.Prompt != nil:
		sid, err := p.sessionAt(st.Prompt.Session)
		if err != nil {
			return err
		}
		done := make(chan struct{})
		p.mu.Lock()
		p.permissions = append([]string(nil), st.Prompt.Permissions...)
		p.cancelWhen, p.cancelSession, p.cancelFired = st.Prompt.CancelWhen, sid, false
		p.during, p.duringFired, p.duringDone = st.Prompt.During, false, done
		p.mu.Unlock()
		_, err = a.call("session/prompt", map[string]any{
			"sessionId": sid,
			"prompt":    []any{map[string]string{"type": "text", "text": st.Prompt.Text}},
		})
		p.mu.Lock()
		left, fired, held := p.permissions, p.cancelFired, p.duringFired
		p.permissions, p.cancelWhen, p.during = nil, nil, nil
		p.mu.Unlock()
		if held {
			// The turn may end before the held steps do (when one of them
			// cancels it); the next step starts after them.
			<-done
		}
		if err != nil {
			return err
		}
		if st.Prompt.During != nil && !held {
			return fmt.Errorf("the turn ended before the agent sent a request matching during.when %+v", st.Prompt.During.When)
		}
		if len(left) > 0 {
			return fmt.Errorf("the turn ended with permission answers left unused: %s", strings.Join(left, ", "))
		}
		if st.Prompt.CancelWhen != nil && !fired {
			return fmt.Errorf("the turn ended before anything matched cancelWhen %+v", *st.Prompt.CancelWhen)
		}
		return nil
	case st.SetMode != nil:
		sid, err := p.sessionAt(st.SetMode.Session)
		if err != nil {
			return err
		}
		_, err = a.call("session/set_mode", map[string]any{"sessionId": sid, "modeId": st.SetMode.Mode})
		return err
	case st.SetConfigOption != nil:
		sid, err := p.sessionAt(st.SetConfigOption.Session)
		if err != nil {
			return err
		}
		_, err = a.call("session/set_config_option", map[string]any{"sessionId": sid, "configId": st.SetConfigOption.ConfigID, "value": st.SetConfigOption.Value})
		return err
	case st.LoadSession != nil || st.ResumeSession != nil:
		reopen, method := st.LoadSession, "session/load"
		if reopen == nil {
			reopen, method = st.ResumeSession, "session/resume"
		}
		sid, err := p.sessionAt(reopen.Session)
		if err != nil {
			return err
		}
		if _, err := a.call(method, map[string]any{"sessionId": sid, "cwd": p.dirs.workspace, "mcpServers": p.mcpServers(reopen.MCPServers)}); err != nil {
			return err
		}
		p.mu.Lock()
		p.current = sid
		p.mu.Unlock()
		return nil
	case st.Restart != nil:
		a.stop(st.Restart.Kill)
		next, err := p.start()
		if err != nil {
			return err
		}
		*ap = next
		return nil
	}
	return errors.New("empty step")
}

// duringStep runs one step of a prompt's during, while the held turn
// waits for the editor.
func (p *player) duringStep(a *agentProc, st Step) error {
	if st.Prompt == nil {
		return p.step(&a, st, ClientSpec{})
	}
	sid, err := p.sessionAt(st.Prompt.Session)
	if err != nil {
		return err
	}
	_, err = a.call("session/prompt", map[string]any{
		"sessionId": sid,
		"prompt":    []any{map[string]string{"type": "text", "text": st.Prompt.Text}},
	})
	return err
}

// hold runs the steps of d while msg, a request of the agent, waits for
// its answer; then it answers msg and closes done.
func (a *agentProc) hold(msg rpcMessage, d *DuringSpec, done chan struct{}) {
	defer close(done)
	defer a.answer(msg)
	for i, st := range d.Steps {
		if err := a.p.duringStep(a, st); err != nil {
			a.p.problem("during step %d (holding %s): %v", i+1, msg.Method, err)
			return
		}
	}
}

// mcpServers is the mcpServers parameter of session/new or session/load,
// with the run's placeholders expanded.
func (p *player) mcpServers(servers []MCPServer) []any {
	out := []any{}
	x := p.paths.Expand
	pairs := func(list []NameValue) []any {
		out := []any{}
		for _, nv := range list {
			out = append(out, map[string]string{"name": nv.Name, "value": x(nv.Value)})
		}
		return out
	}
	for _, sv := range servers {
		if sv.Type == "" {
			args := []string{}
			for _, a := range sv.Args {
				args = append(args, x(a))
			}
			out = append(out, map[string]any{"name": sv.Name, "command": x(sv.Command), "args": args, "env": pairs(sv.Env)})
			continue
		}
		out = append(out, map[string]any{"type": sv.Type, "name": sv.Name, "url": x(sv.URL), "headers": pairs(sv.Headers)})
	}
	return out
}

// permission answers session/request_permission from the turn's queue.
func (p *player) permission(params json.RawMessage) any {
	var req struct {
		Options []struct {
			OptionID string `json:"optionId"`
			Kind     string `json:"kind"`
		} `json:"options"`
	}
	json.Unmarshal(params, &req)
	p.mu.Lock()
	var answer string
	if len(p.permissions) > 0 {
		answer, p.permissions = p.permissions[0], p.permissions[1:]
	}
	p.mu.Unlock()
	cancelled := map[string]any{"outcome": map[string]string{"outcome": "cancelled"}}
	if answer == "" {
		p.problem("the agent asked for permission and the manifest has no answer left (answered cancelled): %s", truncate(string(params), 300))
		return cancelled
	}
	if answer == "cancelled" {
		return cancelled
	}
	for _, o := range req.Options {
		if o.Kind == answer {
			return map[string]any{"outcome": map[string]string{"outcome": "selected", "optionId": o.OptionID}}
		}
	}
	p.problem("the permission request offers no option of kind %s (answered cancelled)", answer)
	return cancelled
}

// readLogs reads the session logs of sessions (in order), each followed by
// its subagent logs in the order the session started them; logs of
// sessions the editor never saw come last, by name.
func readLogs(state string, sessions []string) ([]Log, error) {
	dir := filepath.Join(state, "sessions")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".jsonl") {
			ids = append(ids, strings.TrimSuffix(e.Name(), ".jsonl"))
		}
	}
	ordered := []string{}
	for _, s := range sessions {
		if slices.Contains(ids, s) && !slices.Contains(ordered, s) {
			ordered = append(ordered, s)
		}
	}
	for _, id := range ids {
		if !slices.Contains(ordered, id) {
			ordered = append(ordered, id)
		}
	}
	var logs []Log
	for _, id := range ordered {
		data, err := os.ReadFile(filepath.Join(dir, id+".jsonl"))
		if err != nil {
			return nil, err
		}
		logs = append(logs, Log{SessionID: id, Data: data})
		subDir := filepath.Join(dir, id, "subagents")
		subs, err := os.ReadDir(subDir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		var names []string
		for _, s := range subs {
			// *.transcript.jsonl are Claude-style transcripts derived from
			// the log for hooks (transcript_path), not session logs.
			if strings.HasSuffix(s.Name(), ".jsonl") && !strings.HasSuffix(s.Name(), ".transcript.jsonl") {
				names = append(names, strings.TrimSuffix(s.Name(), ".jsonl"))
			}
		}
		for _, agent := range subagentOrder(data, names) {
			sub, err := os.ReadFile(filepath.Join(subDir, agent+".jsonl"))
			if err != nil {
				return nil, err
			}
			logs = append(logs, Log{SessionID: id, AgentID: agent, Data: sub})
		}
	}
	return logs, nil
}

// subagentOrder orders agent ids by their subagent/start events in the
// parent log; unknown ones follow by name.
func subagentOrder(parent []byte, names []string) []string {
	var out []string
	for _, line := range strings.Split(string(parent), "\n") {
		var ev struct {
			Type string `json:"type"`
			Data struct {
				AgentID string `json:"agentId"`
			} `json:"data"`
		}
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "subagent/start" &&
			slices.Contains(names, ev.Data.AgentID) && !slices.Contains(out, ev.Data.AgentID) {
			out = append(out, ev.Data.AgentID)
		}
	}
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// readFlat reads the regular files of dir (missing dir: none).
func readFlat(dir string) (map[string][]byte, error) {
	out := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.Type().IsRegular() {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				return nil, err
			}
			out[e.Name()] = data
		}
	}
	return out, nil
}

// readTree reads every regular file under dir, keyed by slash path.
func readTree(dir string) (map[string][]byte, error) {
	out := map[string][]byte{}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = data
		return nil
	})
	return out, err
}

// copyTree copies src into dst (a missing src copies nothing).
func copyTree(src, dst string) error {
	if _, err := os.Stat(src); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: only regular files and folders may be in a scenario", path)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, info.Mode().Perm())
	})
}
