package engine

import (
	"cmp"
	"context"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cordis-agent/cordis/bridge/internal/guard"
	"github.com/cordis-agent/cordis/bridge/internal/hookproc"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/internal/proc"
	"github.com/cordis-agent/cordis/internal/trust"
)

// Options are a bridge's settings, shared by every dialect.
type Options struct {
	// Name names the bridge's hooks in the pipeline and the session log.
	Name string
	// Priority places the bridge's hooks in each seam's pipeline.
	Priority int
	// Logger receives file problems, failed runs and (debug) results.
	Logger *slog.Logger
	// Trust records which project hooks the user trusted. Without it no
	// hook of a project file runs (each is reported as untrusted).
	Trust *trust.Store
	// GuardFailure is the cordis.yml value of guardFailure: what a call
	// does when one of its guards could not run ("" is proceed; a value
	// that does not parse fails closed, with an error logged).
	GuardFailure string
	// OutputLimit caps each captured stream of a command (0:
	// hookproc.DefaultOutputLimit); Grace is the delay between SIGTERM and
	// SIGKILL of its process group (0: hookproc.DefaultGrace).
	OutputLimit int
	Grace       time.Duration
	// EnvPolicy decides what of cordis's environment hook commands
	// inherit (nil: proc.DefaultEnvPolicy).
	EnvPolicy *proc.EnvPolicy
	// ManagedOnly, when set, reports an administrator's policy that only
	// managed hooks run (Claude Code's allowManagedHooksOnly): while it
	// reports true, the hooks of every layer but a Managed one are
	// skipped. It is asked at every seam call, so it should be cheap.
	ManagedOnly func() bool
}

// Engine runs one dialect's hooks on cordis's seams. See the package
// documentation.
type Engine[H Handler] struct {
	d      Dialect[H]
	info   Info
	keys   map[hooks.Event]string
	name   string
	prio   int
	log    *slog.Logger
	trust  *trust.Store
	policy guard.Policy
	limit  int
	grace  time.Duration
	env    *proc.EnvPolicy
	files  *loader[H]
	// managedOnly is Options.ManagedOnly (nil: no such policy).
	managedOnly func() bool
	// notices remembers the untrusted hooks and the hook-file problems
	// each session was shown.
	notices trust.Notices
	// async bounds each session's background hooks.
	async asyncSessions

	mu sync.Mutex
	// warned is the overlap warning last logged per file, so that it is
	// logged when it appears, not at every seam call.
	warned map[string]string
}

// New returns the engine of dialect d. It reads nothing yet: files are
// loaded (and reloaded when they change) as sessions use them.
func New[H Handler](d Dialect[H], opts Options) *Engine[H] {
	info := d.Info()
	e := &Engine[H]{
		d: d, info: info, keys: map[hooks.Event]string{},
		name: opts.Name, prio: opts.Priority, log: opts.Logger, trust: opts.Trust,
		limit: opts.OutputLimit, grace: opts.Grace, env: opts.EnvPolicy, warned: map[string]string{},
		managedOnly: opts.ManagedOnly,
	}
	if e.name == "" {
		e.name = info.Guard.Plugin
	}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	for _, s := range d.Seams() {
		e.keys[s.Event] = s.Key
	}
	policy, err := guard.Parse(opts.GuardFailure)
	if err != nil {
		// cordis.yml rejects such a value; from Go, fail closed.
		e.log.Error(e.title()+" hooks: "+err.Error()+"; guards that cannot run deny", "guardFailure", opts.GuardFailure)
		policy = guard.Deny
	}
	e.policy = policy
	e.files = newLoader(d.Parse, e.log, e.title())
	return e
}

// title is the dialect's name in logs ("claude").
func (e *Engine[H]) title() string { return e.info.Name }

// Register registers one hook per seam of the dialect on r. With an
// explicit file that does not exist it registers nothing (and logs a
// warning): the bridge then changes nothing at all.
func (e *Engine[H]) Register(r hooks.Registrar) {
	for _, l := range e.d.Layers("") {
		if !l.Explicit {
			continue
		}
		e.files.load(l) // logs a missing or broken file once
		if _, err := os.Stat(l.Path); err != nil {
			return
		}
	}
	for _, s := range e.d.Seams() {
		r.Register(s.Event, e.Hook(s.Event), hooks.RegisterOptions{Priority: e.prio, Policy: e.switchPolicy})
	}
}

// switchPolicy is an administrator's say over /hooks enable and disable:
// the bridge cannot be switched off while it runs managed hooks, nor on
// (to no effect) while only managed hooks may run and it has none.
func (e *Engine[H]) switchPolicy(on bool) string {
	var managed []string
	for _, l := range e.d.Layers("") {
		if f := e.files.load(l); l.Managed && f != nil && f.Declares {
			managed = append(managed, l.Path)
		}
	}
	switch {
	case !on && len(managed) > 0:
		return "it runs your organization's managed hooks (" + strings.Join(managed, ", ") + "), which cannot be switched off; disableAllHooks in your settings turns off the others"
	case on && len(managed) == 0 && e.managedOnly != nil && e.managedOnly():
		return "your organization's managed settings allow only managed hooks (allowManagedHooksOnly)"
	}
	return ""
}

// Hook returns the engine's hook on one seam.
func (e *Engine[H]) Hook(ev hooks.Event) hooks.Hook { return &seamHook[H]{e: e, ev: ev} }

// seamHook is the engine on one seam.
type seamHook[H Handler] struct {
	e  *Engine[H]
	ev hooks.Event
}

func (h *seamHook[H]) Name() string { return h.e.name }

func (h *seamHook[H]) Applies(in *hooks.Input) bool { return in.Event == h.ev && h.e.Applies(in) }

func (h *seamHook[H]) Run(ctx context.Context, in *hooks.Input) (hooks.Decision, error) {
	if in.Event != h.ev {
		return hooks.Decision{}, nil
	}
	return h.e.Run(ctx, in)
}

var (
	_ hooks.Hook       = (*seamHook[Handler])(nil)
	_ hooks.Applicable = (*seamHook[Handler])(nil)
)

// plan is what the engine does for one seam call.
type plan[H Handler] struct {
	// run are the handlers to run, in configuration order.
	run []H
	// skips are the untrusted project hooks to report to the session:
	// every one of the files in effect, at any turn-scoped seam (the
	// report is shown once per session).
	skips []trust.Skip
	// problems are those of the files in effect, reported like skips.
	problems []string
	// observed is set when the dialect asked to see the call.
	observed bool
}

// plan selects the handlers to run for in: files in layer order, each
// file's handlers of the event in configuration order, a project file's
// only when trusted. It has no effect besides the file cache.
func (e *Engine[H]) plan(in *hooks.Input) plan[H] {
	var p plan[H]
	key, ok := e.keys[in.Event]
	if !ok {
		return p
	}
	type loaded struct {
		layer Layer
		file  *File[H]
	}
	var files []loaded
	// disable is the disableAllHooks in effect among the files that are
	// not managed, disableManaged among the managed ones (files of higher
	// precedence come later).
	var disable, disableManaged *bool
	for _, l := range e.d.Layers(in.Cwd) {
		f := e.files.load(l)
		if l.Sibling != "" {
			e.logOverlap(l)
		}
		if f == nil {
			continue
		}
		files = append(files, loaded{l, f})
		switch {
		case f.DisableAll == nil:
		case l.Managed:
			disableManaged = f.DisableAll
		default:
			disable = f.DisableAll
		}
	}
	if disableManaged != nil && *disableManaged {
		return p
	}
	// Only the policy's hooks run when it says so, or when another file
	// turns hooks off (which cannot turn off the policy's).
	if (disable != nil && *disable) || e.managedOnly != nil && e.managedOnly() {
		files = slices.DeleteFunc(files, func(lf loaded) bool { return !lf.layer.Managed })
	}
	// Hooks skipped before any turn (SessionStart at session/new), and
	// problems found then, are reported at the session's first turn,
	// where a message can be shown; nothing is reported to a session that
	// ends.
	turnScoped := in.TurnID != "" && in.Event != hooks.SessionEnd
	match := e.d.Match(in)
	observer, observes := e.d.(Observer[H])
	var runnable []H
	for _, lf := range files {
		if turnScoped {
			p.problems = append(p.problems, lf.file.Problems...)
		}
		var untrusted map[trust.Hook]bool
		if lf.layer.Project {
			for _, h := range lf.file.All {
				if skip, skipped := e.trust.Skipped(h.Identity()); skipped {
					if untrusted == nil {
						untrusted = map[trust.Hook]bool{}
					}
					untrusted[h.Identity()] = true
					if turnScoped {
						p.skips = append(p.skips, skip)
					}
				}
			}
		}
		for _, h := range lf.file.ByEvent[key] {
			if !untrusted[h.Identity()] && match(h) {
				p.run = append(p.run, h)
			}
		}
		if observes {
			for _, h := range lf.file.All {
				if !untrusted[h.Identity()] {
					runnable = append(runnable, h)
				}
			}
		}
	}
	if observes {
		p.observed = observer.Observes(in, slices.Values(runnable))
	}
	return p
}

// Applies reports whether the engine has anything to do for in: a hook
// to run, an untrusted hook or a file problem to report, a call the
// dialect observes, or a session's notices to forget at its end.
func (e *Engine[H]) Applies(in *hooks.Input) bool {
	p := e.plan(in)
	return len(p.run) > 0 || p.observed ||
		e.notices.Pending(in.SessionID, p.skips) || e.notices.PendingProblems(in.SessionID, e.info.Name, p.problems) ||
		in.Event == hooks.SessionEnd && (e.notices.Has(in.SessionID) || e.async.has(in.SessionID))
}

// Run runs the hooks planned for in, at most a few at once
// (hookproc.RunAll), and merges their outcomes in configuration order. A
// hook that fails is logged and recorded as hook/error and contributes
// nothing; a guard that could not run is reported to the user and follows
// the guardFailure policy. The reports of skipped hooks and file problems
// come first among the decision's system messages.
func (e *Engine[H]) Run(ctx context.Context, in *hooks.Input) (hooks.Decision, error) {
	p := e.plan(in)
	if in.Event == hooks.SessionEnd {
		e.notices.Forget(in.SessionID)
		e.async.forget(in.SessionID)
	}
	notices := append(e.notices.Take(in.SessionID, p.skips), e.notices.TakeProblems(in.SessionID, e.info.Name, p.problems)...)
	if len(p.run) == 0 && !p.observed {
		return hooks.Decision{SystemMessages: notices}, nil
	}
	call, err := e.d.Prepare(in, p.run, p.observed)
	if err != nil {
		return hooks.Decision{SystemMessages: notices}, err
	}
	defer call.Close()
	if len(p.run) == 0 {
		return hooks.Decision{SystemMessages: notices}, nil
	}
	// Background hooks (async) start first, and the call does not wait
	// for them; the others run in it.
	bg, anyBg := e.background(in, p.run)
	var run, late []H
	var cmds, lateCmds []hookproc.Command
	for i, h := range p.run {
		c := call.Command(h)
		c.OutputLimit = cmp.Or(c.OutputLimit, e.limit)
		c.Grace = cmp.Or(c.Grace, e.grace)
		c.EnvPolicy = e.env
		if anyBg && bg[i] {
			late, lateCmds = append(late, h), append(lateCmds, c)
			continue
		}
		run, cmds = append(run, h), append(cmds, c)
	}
	var lateContext []string
	switch {
	case len(late) > 0 && in.Later != nil:
		e.launch(in, late, lateCmds)
	case len(late) > 0:
		lateContext = e.runLate(ctx, in, late, lateCmds)
	}
	results := hookproc.RunAll(ctx, cmds, e.info.Dedup)
	for i, res := range results {
		if res.Duplicate {
			continue
		}
		h := run[i]
		failure := call.Interpret(h, res)
		if failure == "" {
			e.logRan(in, h, res)
			continue
		}
		why := res.NotRun()
		if why == "" || !guard.Guards(in.Event) || h.Advisory() {
			e.recordFailure(in, h, res, failure)
			continue
		}
		// A guard that could not run: the record says why, the user is
		// told, and the policy decides whether it refuses the call.
		e.recordFailure(in, h, res, why)
		id := h.Identity()
		f := guard.Failure{Dialect: e.info.Guard, Event: in.Event, Tool: in.ToolName, Command: id.Command, Source: id.Source, Why: why}
		notices = append(notices, f.Message(e.policy))
		if e.policy == guard.Deny {
			call.Refuse(f.Reason())
		}
	}
	d := call.Decision()
	d.SystemMessages = append(notices, d.SystemMessages...)
	d.AdditionalContext = append(d.AdditionalContext, lateContext...)
	return d, nil
}

// recordFailure logs a failed run and records it as hook/error in the
// session log: every failed run, whether or not the call's other hooks
// decided, so that one situation leaves the same trace in both dialects.
func (e *Engine[H]) recordFailure(in *hooks.Input, h H, res hookproc.Result, failure string) {
	id := h.Identity()
	e.log.Warn(e.title()+" hook failed; it has no say", e.runAttrs(in, id, res, "error", failure)...)
	guard.Record(in, e.name, id.Command, id.Source, res, failure)
}

func (e *Engine[H]) logRan(in *hooks.Input, h H, res hookproc.Result) {
	if e.log.Enabled(context.Background(), slog.LevelDebug) {
		e.log.Debug(e.title()+" hook ran", e.runAttrs(in, h.Identity(), res, "stdout", clip(res.Stdout, 2000), "stderr", clip(res.Stderr, 2000))...)
	}
}

func (e *Engine[H]) runAttrs(in *hooks.Input, id trust.Hook, res hookproc.Result, more ...any) []any {
	attrs := []any{"hook", e.name, "event", in.Event, "session", in.SessionID, "command", id.Command, "source", id.Source,
		"exit", res.ExitCode, "durationMs", res.Duration.Milliseconds()}
	if res.StdoutOmitted > 0 || res.StderrOmitted > 0 {
		attrs = append(attrs, "stdoutOmitted", res.StdoutOmitted, "stderrOmitted", res.StderrOmitted)
	}
	return append(attrs, more...)
}

// clip keeps the first n characters of s.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// overlap is the warning of layer l when it and its sibling both declare
// hooks, or "", as the files were last loaded.
func (e *Engine[H]) overlap(l Layer) string {
	if l.Sibling == "" || !e.files.declares(l.Path) || !e.files.declares(l.Sibling) {
		return ""
	}
	return l.Overlap
}

// logOverlap logs the overlap warning of l when it appears or changes.
func (e *Engine[H]) logOverlap(l Layer) {
	w := e.overlap(l)
	e.mu.Lock()
	changed := e.warned[l.Path] != w
	e.warned[l.Path] = w
	e.mu.Unlock()
	if changed && w != "" {
		e.log.Warn(e.title()+" hooks: "+w, "path", l.Path)
	}
}
