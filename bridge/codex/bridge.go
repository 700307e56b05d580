package codex

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/cordis-agent/cordis/bridge/internal/guard"
	"github.com/cordis-agent/cordis/bridge/internal/hookproc"
	"github.com/cordis-agent/cordis/bridge/trust"
	"github.com/cordis-agent/cordis/hooks"
)

// Dialect is the trust store's name for Codex hooks.
const Dialect = "codex"

// Options are what the bridge needs besides its Config.
type Options struct {
	// Name names the bridge's hooks in the pipeline and the session log
	// (default "bridge/codex"; cmd/cordis passes the config entry's id).
	Name string
	// BaseDir resolves a relative Config.Path (default: the process's
	// working directory; cmd/cordis resolves it against the config file).
	BaseDir string
	// Priority places the bridge's hooks in each seam's pipeline.
	Priority int
	// Home is the user's home directory, for ~/.codex/hooks.json and
	// ~/.codex/config.toml. Without it the user folder is $CODEX_HOME, as
	// in Codex, else ~/.codex of os.UserHomeDir.
	Home string
	// Trust records which project hooks the user trusted. Without it no
	// project hook runs (each is reported as untrusted).
	Trust *trust.Store
	// Shell is the argv a command string is appended to (default
	// hookproc.LoginShell(): `$SHELL -lc`, else `/bin/sh -lc`).
	Shell []string
	// Logger receives load problems and failed runs.
	Logger *slog.Logger
}

// Bridge runs Codex CLI hook commands on cordis's seams. See the package
// documentation.
type Bridge struct {
	name     string
	priority int
	explicit string
	userDir  string // the user layer: $CODEX_HOME or <home>/.codex
	trust    *trust.Store
	shell    []string
	log      *slog.Logger
	// guardFailure is what happens to a call whose PreToolUse or
	// PermissionRequest hook could not run.
	guardFailure guard.Policy

	mu       sync.Mutex
	files    map[string]*cachedFile
	order    []string // file paths in first-seen order, for Problems
	sessions map[string]*sessionState
	// notices remembers the untrusted hooks and the hook-file problems
	// each session was shown.
	notices trust.Notices
	// warned is the both-forms warning last logged per config.toml, so
	// that it is logged once, not at every seam call.
	warned map[string]string
}

type cachedFile struct {
	modTime time.Time
	size    int64
	missing bool
	project bool
	// sibling is, for a discovered config.toml, the hooks.json of the
	// same layer.
	sibling string
	file    *hookFile
}

// sessionState is what the bridge remembers about one session.
type sessionState struct {
	// snapshots hold files' content before an Edit/Write, by tool use id,
	// for the PostToolUse patch; bounded by maxSnapshots.
	snapshots     map[string]fileState
	snapshotOrder []string
	// agentTypes remembers each subagent's type from SubagentStart, since
	// the loop does not repeat it on SubagentStop and tool events.
	agentTypes map[string]string
}

const maxSnapshots = 32

// New returns a bridge for cfg. It reads nothing yet: files are loaded
// (and reloaded when they change) as sessions use them.
func New(cfg Config, opts Options) *Bridge {
	b := &Bridge{
		name:     firstNonEmpty(opts.Name, "bridge/codex"),
		priority: opts.Priority,
		trust:    opts.Trust,
		shell:    opts.Shell,
		log:      opts.Logger,
		files:    map[string]*cachedFile{},
		sessions: map[string]*sessionState{},
		warned:   map[string]string{},
	}
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	policy, err := guard.Parse(string(cfg.GuardFailure))
	if err != nil {
		// cordis.yml rejects such a value; from Go, fail closed.
		b.log.Error("codex hooks: "+err.Error()+"; guards that cannot run deny", "guardFailure", cfg.GuardFailure)
		policy = guard.Deny
	}
	b.guardFailure = policy
	switch home := opts.Home; {
	case home != "":
		b.userDir = filepath.Join(home, ".codex")
	case os.Getenv("CODEX_HOME") != "":
		b.userDir = os.Getenv("CODEX_HOME")
	default:
		if home, _ = os.UserHomeDir(); home != "" {
			b.userDir = filepath.Join(home, ".codex")
		}
	}
	if cfg.Path != "" {
		p := cfg.Path
		if !filepath.IsAbs(p) && opts.BaseDir != "" {
			p = filepath.Join(opts.BaseDir, p)
		}
		b.explicit, _ = filepath.Abs(p)
	}
	return b
}

// Register registers the bridge on every seam it serves: SessionStart,
// UserPromptSubmit, PreToolUse, PermissionRequest, PostToolUse (and
// PostToolUseFailure, which runs Codex's PostToolUse hooks), Stop,
// SubagentStart, SubagentStop, PreCompact and SessionEnd.
func (b *Bridge) Register(r hooks.Registrar) {
	for _, s := range seamEvents {
		r.Register(s.seam, &eventHook{b: b, event: s.codex}, hooks.RegisterOptions{Priority: b.priority})
	}
}

// eventHook is the bridge on one seam.
type eventHook struct {
	b     *Bridge
	event string
}

func (h *eventHook) Name() string { return h.b.name }

// Applies reports whether the bridge has anything to do for in: a command
// to run, an untrusted hook or a hook-file problem to report, or a file to
// remember for a later PostToolUse patch.
func (h *eventHook) Applies(in *hooks.Input) bool {
	p := h.b.plan(h.event, in)
	h.b.snapshot(p)
	return len(p.run) > 0 || h.b.notices.Pending(p.in.SessionID, p.skips) || h.b.notices.PendingProblems(p.in.SessionID, Dialect, p.problems)
}

func (h *eventHook) Run(ctx context.Context, in *hooks.Input) (hooks.Decision, error) {
	return h.b.run(ctx, h.event, in)
}

var (
	_ hooks.Hook       = (*eventHook)(nil)
	_ hooks.Applicable = (*eventHook)(nil)
)

// source is one hook file in effect for a session: a hooks.json or a
// config.toml.
type source struct {
	path    string
	project bool // found in the project: runs only when trusted
	toml    bool // a config.toml: its [hooks] table
	// explicit is set for the file named by Config.Path.
	explicit bool
	// sibling is, for a discovered config.toml, the hooks.json of the
	// same layer (both forms in one layer merge, with a warning).
	sibling string
}

// Codex's file names in a .codex directory.
const (
	hooksJSONName  = "hooks.json"
	configTOMLName = "config.toml"
)

// sources lists the files in effect for a session in cwd, in the order
// their hooks run: the explicit path alone, or the user layer
// (~/.codex/hooks.json then ~/.codex/config.toml) then the project layer
// (<cwd>/.codex/hooks.json then <cwd>/.codex/config.toml). Within a layer
// hooks.json comes first, as in Codex.
func (b *Bridge) sources(cwd string) []source {
	if b.explicit != "" {
		return []source{{path: b.explicit, toml: isTOMLPath(b.explicit), explicit: true}}
	}
	var out []source
	layer := func(dir string, project bool) {
		js := filepath.Join(dir, hooksJSONName)
		out = append(out,
			source{path: js, project: project},
			source{path: filepath.Join(dir, configTOMLName), project: project, toml: true, sibling: js})
	}
	user := b.userDir
	if user != "" {
		layer(user, false)
	}
	if cwd != "" {
		proj := filepath.Join(cwd, ".codex")
		if abs, err := filepath.Abs(proj); err == nil {
			proj = abs
		}
		if !trust.SamePath(proj, user) {
			layer(proj, true)
		}
	}
	return out
}

// load returns the parsed file at path, re-reading it when it changed; nil
// when it does not exist (a missing file is not a problem).
func (b *Bridge) load(src source) *hookFile {
	fi, err := os.Stat(src.path)
	b.mu.Lock()
	c := b.files[src.path]
	if c == nil {
		c = &cachedFile{size: -1}
		b.files[src.path] = c
		b.order = append(b.order, src.path)
	}
	c.project, c.sibling = src.project, src.sibling
	if errors.Is(err, fs.ErrNotExist) {
		if !c.missing {
			b.log.Debug("codex hooks file not found", "path", src.path)
		}
		c.missing, c.file, c.size = true, nil, -1
		b.mu.Unlock()
		return nil
	}
	if err == nil && fi.IsDir() {
		err = errors.New("is a directory")
	}
	if fi != nil && !c.missing && c.file != nil && fi.ModTime().Equal(c.modTime) && fi.Size() == c.size {
		f := c.file
		b.mu.Unlock()
		return f
	}
	b.mu.Unlock()

	var f *hookFile
	if err == nil {
		var data []byte
		if data, err = trust.ReadHookFile(src.path, src.project); err == nil {
			if src.toml {
				f = parseTOMLFile(src.path, data)
			} else {
				f = parseFile(src.path, data)
			}
		}
	}
	if err != nil {
		f = newHookFile(src.path, src.toml).fail("cannot read: %v", err)
	}

	b.mu.Lock()
	defer b.mu.Unlock()
	if c.file != nil && fi != nil && fi.ModTime().Equal(c.modTime) && fi.Size() == c.size {
		return c.file // another session loaded the same version meanwhile
	}
	repeated := c.file != nil && slices.Equal(c.file.problems, f.problems) && len(c.file.all) == 0 && len(f.all) == 0
	c.missing, c.file, c.modTime, c.size = false, f, time.Time{}, -1
	if fi != nil {
		c.modTime, c.size = fi.ModTime(), fi.Size()
	}
	if !repeated {
		for _, p := range f.problems {
			b.log.Error("codex hooks: "+p, "path", src.path)
		}
	}
	b.log.Debug("codex hooks loaded", "path", src.path, "hooks", len(f.all))
	return f
}

// layerWarning is the warning for the layer of the discovered config.toml
// at path when its [hooks] and the layer's hooks.json both declare hooks
// (Codex loads both, hooks.json first, and warns), or "". It looks at
// the files as last loaded.
func (b *Bridge) layerWarning(path string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.layerWarningLocked(path)
}

func (b *Bridge) layerWarningLocked(path string) string {
	c := b.files[path]
	if c == nil || c.sibling == "" || c.file == nil || !c.file.declared {
		return ""
	}
	js := b.files[c.sibling]
	if js == nil || js.file == nil || !js.file.declared {
		return ""
	}
	return fmt.Sprintf("%s: loading hooks from both %s and this file's [hooks] (%s first); prefer a single representation for this layer", path, c.sibling, hooksJSONName)
}

// logLayerWarning logs the layer warning of the config.toml at path when
// it appears or changes (not at every seam call).
func (b *Bridge) logLayerWarning(path string) {
	b.mu.Lock()
	w := b.layerWarningLocked(path)
	changed := b.warned[path] != w
	b.warned[path] = w
	b.mu.Unlock()
	if changed && w != "" {
		b.log.Warn("codex hooks: "+w, "path", path)
	}
}

// trustHook is h's identity in the trust store.
func trustHook(h *handler) trust.Hook {
	return trust.Hook{Dialect: Dialect, Source: h.file.path, Event: h.event, Matcher: h.matcher.raw, Type: "command", Command: h.command}
}

// skipped reports whether a project hook must be skipped, and why.
func (b *Bridge) skipped(h *handler) (trust.Skip, bool) { return b.trust.Skipped(trustHook(h)) }

// plan is what the bridge will do for one call of a seam.
type plan struct {
	event string
	in    *hooks.Input
	run   []*handler
	// skips are the untrusted project hooks to report to the session.
	skips []trust.Skip
	// problems are those of the files in effect (a file that does not
	// parse, a bad entry), reported like skips.
	problems []string
	// post is set on PreToolUse of an Edit/Write when a PostToolUse hook
	// will want the file's content from before the call.
	post  bool
	state *sessionState
}

// plan selects the handlers to run for in and the untrusted hooks to
// report. It also keeps the bookkeeping the loop's input lacks (subagent
// types) and forgets a session at SessionEnd.
func (b *Bridge) plan(event string, in *hooks.Input) *plan {
	p := &plan{event: event, in: in}
	b.mu.Lock()
	st := b.sessions[in.SessionID]
	if st == nil && event != evSessionEnd {
		st = &sessionState{snapshots: map[string]fileState{}, agentTypes: map[string]string{}}
		b.sessions[in.SessionID] = st
	}
	if st != nil {
		switch {
		case event == evSubagentStart && in.AgentID != "":
			st.agentTypes[in.AgentID] = in.AgentType
		case in.AgentID != "" && in.AgentType == "":
			if t := st.agentTypes[in.AgentID]; t != "" {
				c := *in
				c.AgentType = t
				p.in = &c
			}
		}
		if event == evSessionEnd {
			delete(b.sessions, in.SessionID)
			b.notices.Forget(in.SessionID)
		}
	}
	p.state = st
	b.mu.Unlock()

	var name string
	var aliases []string
	if isToolEvent(event) {
		name, aliases = codexToolName(in.ToolName)
	}
	vals, useMatcher := matchValues(event, p.in, &toolView{name: name, aliases: aliases})
	turnScoped := in.TurnID != "" && event != evSessionEnd // nothing to report to a session that ends
	for _, src := range b.sources(in.Cwd) {
		f := b.load(src)
		if src.sibling != "" {
			b.logLayerWarning(src.path)
		}
		if f == nil {
			continue
		}
		if turnScoped && p.state != nil {
			p.problems = append(p.problems, f.problems...)
		}
		for _, h := range f.all {
			if src.project {
				if skip, skipped := b.skipped(h); skipped {
					if turnScoped && p.state != nil {
						p.skips = append(p.skips, skip)
					}
					continue
				}
			}
			if h.event == event && (!useMatcher || h.matcher.match(vals...)) {
				p.run = append(p.run, h)
			}
			if event == evPreToolUse && name == toolApplyPatch && h.event == evPostToolUse && h.matcher.match(vals...) {
				p.post = true
			}
		}
	}
	return p
}

func isToolEvent(event string) bool {
	return event == evPreToolUse || event == evPermissionRequest || event == evPostToolUse
}

// codexToolName is a cordis tool's name in Codex and the other names its
// matchers answer to.
func codexToolName(tool string) (string, []string) {
	if isPatchTool(tool) {
		return toolApplyPatch, []string{"Edit", "Write"}
	}
	return tool, nil
}

// snapshot keeps, at PreToolUse of an Edit/Write that a PostToolUse hook
// will see, the file's content before the call.
func (b *Bridge) snapshot(p *plan) {
	if !p.post || p.state == nil || p.in.ToolUseID == "" {
		return
	}
	b.mu.Lock()
	_, have := p.state.snapshots[p.in.ToolUseID]
	b.mu.Unlock()
	if have {
		return
	}
	var e editInput
	if unmarshalInto(p.in.ToolInput, &e) != nil || e.FilePath == "" {
		return
	}
	abs, _ := patchPaths(p.in.Cwd, e.FilePath)
	fs := readState(p.in.Cwd, abs)
	b.keepSnapshot(p.state, p.in.ToolUseID, fs)
}

func (b *Bridge) keepSnapshot(st *sessionState, id string, fs fileState) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := st.snapshots[id]; !ok {
		st.snapshotOrder = append(st.snapshotOrder, id)
	}
	st.snapshots[id] = fs
	for len(st.snapshotOrder) > maxSnapshots {
		delete(st.snapshots, st.snapshotOrder[0])
		st.snapshotOrder = st.snapshotOrder[1:]
	}
}

// takeSnapshot returns and forgets the content kept for a tool call.
func (b *Bridge) takeSnapshot(st *sessionState, id string) *fileState {
	if st == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	fs, ok := st.snapshots[id]
	if !ok {
		return nil
	}
	delete(st.snapshots, id)
	st.snapshotOrder = slices.DeleteFunc(st.snapshotOrder, func(s string) bool { return s == id })
	return &fs
}

// run runs the handlers of one seam call and merges their outcomes.
func (b *Bridge) run(ctx context.Context, event string, in *hooks.Input) (hooks.Decision, error) {
	p := b.plan(event, in)
	in = p.in
	notices := append(b.notices.Take(in.SessionID, p.skips), b.notices.TakeProblems(in.SessionID, Dialect, p.problems)...)
	var tv *toolView
	switch {
	case event == evPostToolUse:
		// Forget the kept content whether or not a hook runs.
		before := b.takeSnapshot(p.state, in.ToolUseID)
		if in.Event != hooks.PostToolUse {
			before = nil // the call failed: the file is as it was
		}
		if len(p.run) > 0 {
			tv = viewTool(in, before)
		}
	case isToolEvent(event) && len(p.run) > 0:
		tv = viewTool(in, nil)
		if p.post && tv.before.ok {
			b.keepSnapshot(p.state, in.ToolUseID, tv.before)
		}
	case p.post:
		b.snapshot(p)
	}
	if len(p.run) == 0 {
		return hooks.Decision{SystemMessages: notices}, nil
	}
	stdin, err := renderInput(event, in, tv)
	if err != nil {
		return hooks.Decision{SystemMessages: notices}, fmt.Errorf("rendering the hook input: %v", err)
	}
	shell := b.shell
	if len(shell) == 0 {
		shell = hookproc.LoginShell()
	}
	cmds := make([]hookproc.Command, len(p.run))
	for i, h := range p.run {
		cmds[i] = hookproc.Command{Shell: shell, Command: h.command, Dir: in.Cwd, Stdin: stdin, Timeout: h.timeout}
		if h.status != "" {
			b.log.Debug("codex hook running", "event", event, "status", h.status, "command", h.command)
		}
	}
	results := hookproc.RunAll(ctx, cmds, false) // Codex runs duplicates too
	outs := make([]outcome, len(results))
	for i, r := range results {
		o := interpret(event, r)
		if o.failure == "" && o.allow && o.updatedInput != nil && tv != nil {
			mapped, err := mapUpdatedInput(tv, o.updatedInput)
			if err != nil {
				o = failed("%v", err)
			} else {
				o.updatedInput = mapped
			}
		}
		if o.failure != "" {
			b.reportFailure(in, event, p.run[i], r, o.failure)
			if why := r.NotRun(); why != "" && guard.Guards(in.Event) {
				// A guard that could not run: the user is told, and the
				// policy decides whether it refuses the call.
				f := guard.Failure{Dialect: dialect, Event: in.Event, Tool: in.ToolName, Command: p.run[i].command, Source: p.run[i].file.path, Why: why}
				notices = append(notices, f.Message(b.guardFailure))
				if b.guardFailure == guard.Deny {
					o = outcome{block: true, reason: f.Reason()}
				}
			}
		}
		outs[i] = o
	}
	d := merge(event, outs)
	d.SystemMessages = append(notices, d.SystemMessages...)
	return d, nil
}

// dialect names the bridge in guard-failure messages.
var dialect = guard.Dialect{Name: "Codex", Original: "Codex", Plugin: "bridge/codex"}

func (b *Bridge) reportFailure(in *hooks.Input, event string, h *handler, r hookproc.Result, failure string) {
	b.log.Warn("codex hook failed", "hook", b.name, "event", event, "command", h.command, "source", h.file.path, "session", in.SessionID, "error", failure)
	guard.Record(in, b.name, h.command, h.file.path, r, failure)
}

// Problems describes what is wrong with the hook files the bridge has
// loaded so far (malformed files, skipped groups and handlers, events
// cordis cannot run) and the project hooks it skips because they are not
// trusted, in the order the files were first loaded.
func (b *Bridge) Problems() []string {
	b.mu.Lock()
	type loaded struct {
		file    *hookFile
		project bool
		warning string
	}
	var files []loaded
	for _, p := range b.order {
		if c := b.files[p]; !c.missing && c.file != nil {
			files = append(files, loaded{c.file, c.project, b.layerWarningLocked(p)})
		}
	}
	b.mu.Unlock()
	var out []string
	for _, f := range files {
		out = append(out, b.fileProblems(f.file, f.project)...)
		if f.warning != "" {
			out = append(out, f.warning)
		}
	}
	return out
}

// fileProblems are f's problems and, for a project file, its untrusted
// hooks.
func (b *Bridge) fileProblems(f *hookFile, project bool) []string {
	out := slices.Clone(f.problems)
	if !project {
		return out
	}
	for _, h := range f.all {
		if skip, skipped := b.skipped(h); skipped {
			out = append(out, skip.Problem())
		}
	}
	return out
}

// Doctor checks the Codex hook files in effect for a session in cwd, for
// the /doctor command: one "✓" line per file that loads cleanly, one "✗"
// line per problem or skipped (untrusted) project hook, and the warning
// for a layer with hooks in both its hooks.json and its config.toml.
// Missing files, and discovered config.toml files without hooks, are not
// mentioned.
func (b *Bridge) Doctor(cwd string) []string {
	var out []string
	for _, src := range b.sources(cwd) {
		f := b.load(src)
		if f == nil {
			continue
		}
		problems := b.fileProblems(f, src.project)
		if src.sibling != "" {
			if w := b.layerWarning(src.path); w != "" {
				problems = append(problems, w)
			}
		}
		if len(problems) == 0 && src.toml && !src.explicit && !f.declared {
			continue // a config.toml without hooks
		}
		if len(problems) == 0 {
			out = append(out, fmt.Sprintf("✓ Codex hooks %s (%d hooks)", f.path, len(f.all)))
		}
		for _, p := range problems {
			out = append(out, "✗ Codex hooks "+p)
		}
	}
	return out
}

// Discover returns the Codex project hook files of cwd (the ones that
// need trust) with their hooks: what `cordis hooks trust --cwd` trusts.
// They are <cwd>/.codex/hooks.json and <cwd>/.codex/config.toml, each
// when it exists; a config.toml only when it declares hooks in [hooks] or
// is broken (its Problems say why). A layer that is also the user level
// (cwd is the home directory) needs no trust and is not returned.
func Discover(cwd string) []trust.Discovered {
	b := New(Config{}, Options{})
	var out []trust.Discovered
	for _, src := range b.sources(cwd) {
		if !src.project {
			continue
		}
		f := b.load(src)
		if f == nil {
			continue
		}
		problems := slices.Clone(f.problems)
		if src.sibling != "" {
			if w := b.layerWarning(src.path); w != "" {
				problems = append(problems, w)
			}
		}
		if src.toml && !f.declared && len(problems) == 0 {
			continue // a config.toml without hooks
		}
		d := trust.Discovered{Dialect: Dialect, Path: src.path, Problems: problems}
		for _, h := range f.all {
			d.Hooks = append(d.Hooks, trustHook(h))
		}
		out = append(out, d)
	}
	return out
}
