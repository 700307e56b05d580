package claude

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cordis-agent/cordis/bridge/internal/guard"
	"github.com/cordis-agent/cordis/bridge/internal/hookproc"
	"github.com/cordis-agent/cordis/bridge/trust"
	"github.com/cordis-agent/cordis/hooks"
)

// Dialect is the trust store's name for Claude Code hooks.
const Dialect = "claude"

// Default timeouts (reference §4.3).
const (
	DefaultTimeout          = 600 * time.Second
	UserPromptSubmitTimeout = 30 * time.Second
	// SessionEndTimeout is the default for SessionEnd hooks (Claude Code
	// gives them a 1.5 s budget, CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS
	// overrides it); a hook's own timeout raises it up to
	// SessionEndMaxTimeout.
	SessionEndTimeout    = 1500 * time.Millisecond
	SessionEndMaxTimeout = 60 * time.Second
)

// Options are the bridge's settings that do not come from cordis.yml.
type Options struct {
	// Logger receives problems, warnings and per-command results (debug).
	Logger *slog.Logger
	// Home is the user's home directory for ~/.claude/settings.json (""
	// : os.UserHomeDir()).
	Home string
	// Name is the hooks' name in the pipeline ("": "bridge/claude").
	Name string
	// Priority places the bridge's hooks in each seam's pipeline.
	Priority int
	// OutputLimit caps each captured stream of a command (0:
	// hookproc.DefaultOutputLimit).
	OutputLimit int
	// Grace is the delay between SIGTERM and SIGKILL of a command's
	// process group (0: hookproc.DefaultGrace).
	Grace time.Duration
	// Trust records which project hooks the user trusted (cmd/cordis
	// passes trust.Open(stateDir)). Without it no hook of a project file
	// found by discovery runs (each is reported as untrusted).
	Trust *trust.Store
}

// Bridge runs Claude Code hook commands on cordis's seams. One Bridge is
// shared by every session; Run, Applies, Problems and Doctor are safe for
// concurrent use.
type Bridge struct {
	path string
	home string
	// userDir holds the user's settings.json: $CLAUDE_CONFIG_DIR, as in
	// Claude Code, else <home>/.claude.
	userDir string
	name    string
	prio    int
	limit   int
	grace   time.Duration
	log     *slog.Logger
	files   *loader
	trust   *trust.Store
	// guardFailure is what happens to a call whose PreToolUse or
	// PermissionRequest hook could not run.
	guardFailure guard.Policy
	// notices remembers the untrusted hooks and the hook-file problems
	// each session was shown.
	notices trust.Notices
}

// dialect names the bridge in guard-failure messages.
var dialect = guard.Dialect{Name: "Claude", Original: "Claude Code", Plugin: "bridge/claude"}

// New returns a bridge for cfg. A relative cfg.Path is taken as is (the
// caller resolves it against the config file's directory).
func New(cfg Config, opts Options) *Bridge {
	b := &Bridge{
		path:  cfg.Path,
		home:  opts.Home,
		name:  opts.Name,
		prio:  opts.Priority,
		limit: opts.OutputLimit,
		grace: opts.Grace,
		log:   opts.Logger,
		trust: opts.Trust,
	}
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	policy, err := guard.Parse(string(cfg.GuardFailure))
	if err != nil {
		// cordis.yml rejects such a value; from Go, fail closed.
		b.log.Error("claude hooks: "+err.Error()+"; guards that cannot run deny", "guardFailure", cfg.GuardFailure)
		policy = guard.Deny
	}
	b.guardFailure = policy
	if b.home == "" && b.path == "" {
		b.home, b.userDir = userDirs()
	} else if b.home != "" {
		b.userDir = filepath.Join(b.home, ".claude")
	}
	if b.name == "" {
		b.name = "bridge/claude"
	}
	b.files = &loader{log: b.log, explicit: b.path, files: map[string]*fileState{}}
	return b
}

// Events are the seams the bridge serves, in registration order.
func Events() []hooks.Event { return append([]hooks.Event(nil), supportedEvents...) }

// Register registers one hook per supported event on r. With an explicit
// path that does not exist it registers nothing (and logs a warning): the
// bridge then changes nothing at all.
func (b *Bridge) Register(r hooks.Registrar) {
	if b.path != "" {
		b.files.load(source{path: b.path}) // logs a missing or malformed file once
		if _, err := os.Stat(b.path); err != nil {
			return
		}
	}
	for _, ev := range supportedEvents {
		r.Register(ev, b.Hook(ev), hooks.RegisterOptions{Priority: b.prio})
	}
}

// Hook returns the bridge's hook for one event.
func (b *Bridge) Hook(ev hooks.Event) hooks.Hook { return &eventHook{b: b, ev: ev} }

// Problems lists what is wrong with the hook files seen so far (malformed
// JSON, bad matchers, unknown events or hook types) and the project hooks
// it skips because they are not trusted, by file. Missing files are not
// problems.
func (b *Bridge) Problems() []string {
	var out []string
	for _, st := range b.files.seen() {
		out = append(out, b.fileProblems(st)...)
	}
	return out
}

// fileProblems are a loaded file's problems and, for a project file, its
// untrusted hooks.
func (b *Bridge) fileProblems(st fileState) []string {
	switch {
	case st.err != nil:
		return []string{st.err.Error()}
	case st.set == nil:
		return nil
	}
	out := slices.Clone(st.set.problems)
	if st.project {
		for _, h := range st.set.all {
			if skip, skipped := b.trust.Skipped(h); skipped {
				out = append(out, skip.Problem())
			}
		}
	}
	return out
}

// Doctor checks the Claude hook files in effect for a session in cwd, for
// the /doctor command: one "✓" line per file that loads cleanly, one "✗"
// line per problem or skipped (untrusted) project hook. Missing files are
// not mentioned.
func (b *Bridge) Doctor(cwd string) []string {
	var out []string
	for _, src := range sources(b.path, b.userDir, b.home, cwd) {
		st := b.files.loadState(src)
		if !st.exists {
			continue
		}
		problems := b.fileProblems(st)
		if len(problems) == 0 {
			n := 0
			if st.set != nil {
				n = len(st.set.all)
			}
			out = append(out, fmt.Sprintf("✓ Claude hooks %s (%d hooks)", src.path, n))
		}
		for _, p := range problems {
			out = append(out, "✗ Claude hooks "+p)
		}
	}
	return out
}

// Discover returns the Claude project settings files of cwd that exist
// (<cwd>/.claude/settings.json and settings.local.json, the ones that
// need trust) with their hooks: what `cordis hooks trust --cwd` trusts.
// In the home directory those files are the user's own, need no trust and
// are not returned.
func Discover(cwd string) []trust.Discovered {
	home, userDir := userDirs()
	return discover(userDir, home, cwd)
}

// userDirs returns the user's home directory and Claude Code's user folder
// in it: $CLAUDE_CONFIG_DIR when set (Claude Code reads its user settings
// there), else <home>/.claude.
func userDirs() (home, userDir string) {
	home, _ = os.UserHomeDir()
	if dir := os.Getenv("CLAUDE_CONFIG_DIR"); dir != "" {
		return home, dir
	}
	if home == "" {
		return "", ""
	}
	return home, filepath.Join(home, ".claude")
}

func discover(userDir, home, cwd string) []trust.Discovered {
	l := &loader{log: slog.New(slog.DiscardHandler), files: map[string]*fileState{}}
	var out []trust.Discovered
	for _, src := range sources("", userDir, home, cwd) {
		if !src.project {
			continue
		}
		st := l.loadState(src)
		if !st.exists {
			continue
		}
		d := trust.Discovered{Dialect: Dialect, Path: src.path}
		if st.err != nil {
			d.Problems = []string{st.err.Error()}
		}
		if st.set != nil {
			d.Hooks = st.set.all
			d.Problems = append(slices.Clone(st.set.problems), st.set.warnings...)
		}
		out = append(out, d)
	}
	return out
}

type eventHook struct {
	b  *Bridge
	ev hooks.Event
}

func (h *eventHook) Name() string { return h.b.name }

func (h *eventHook) Applies(in *hooks.Input) bool {
	return in.Event == h.ev && h.b.Applies(in)
}

func (h *eventHook) Run(ctx context.Context, in *hooks.Input) (hooks.Decision, error) {
	if in.Event != h.ev {
		return hooks.Decision{}, nil
	}
	return h.b.Run(ctx, in)
}

// Applies reports whether any command is configured for in (its event,
// matcher and `if` filter) or an untrusted project hook or a hook-file
// problem is to be reported, so that a pipeline can skip the bridge
// without a trace.
func (b *Bridge) Applies(in *hooks.Input) bool {
	p := b.plan(in)
	return len(p.run) > 0 || b.notices.Pending(in.SessionID, p.skips) || b.notices.PendingProblems(in.SessionID, Dialect, p.problems)
}

// plan is what the bridge does for one input.
type plan struct {
	// run are the commands to run, in configuration order.
	run []handler
	// skips are the untrusted project hooks to report to the session:
	// every one of the files in effect, at any event of a turn (the
	// report is shown once per session).
	skips []trust.Skip
	// problems are those of the files in effect (a file that does not
	// parse, a bad entry), reported like skips.
	problems []string
}

// plan selects the commands to run for in, in configuration order: user,
// project, then local settings (or the explicit file), groups and hooks
// in file order; a project file's hooks only when trusted.
func (b *Bridge) plan(in *hooks.Input) plan {
	if in.Event == hooks.SessionEnd {
		b.notices.Forget(in.SessionID)
	}
	type loaded struct {
		set     *settings
		project bool
	}
	var sets []loaded
	var disable *bool
	var problems []string
	for _, src := range sources(b.path, b.userDir, b.home, in.Cwd) {
		st := b.files.loadState(src)
		if st.err != nil {
			problems = append(problems, st.err.Error())
		}
		s := st.set
		if s == nil {
			continue
		}
		problems = append(problems, s.problems...)
		sets = append(sets, loaded{s, src.project})
		if s.disable != nil {
			disable = s.disable // higher precedence files come later
		}
	}
	var p plan
	if disable != nil && *disable {
		return p
	}
	// Hooks skipped before any turn (SessionStart at session/new), and
	// problems found then, are reported at the session's first turn,
	// where a message can be shown; nothing is reported to a session that
	// ends.
	turnScoped := in.TurnID != "" && in.Event != hooks.SessionEnd
	if turnScoped {
		p.problems = problems
	}
	value, matchable := matchValue(in)
	for _, s := range sets {
		var untrusted map[trust.Hook]bool
		if s.project {
			for _, h := range s.set.all {
				if skip, skipped := b.trust.Skipped(h); skipped {
					if untrusted == nil {
						untrusted = map[trust.Hook]bool{}
					}
					untrusted[h] = true
					if turnScoped {
						p.skips = append(p.skips, skip)
					}
				}
			}
		}
		for _, g := range s.set.events[in.Event] {
			if matchable && !g.matcher.match(value) {
				continue
			}
			for _, h := range g.hooks {
				if untrusted[h.id] {
					continue
				}
				if h.ifRule != "" && !ifMatches(h.ifRule, in, b.home) {
					continue
				}
				p.run = append(p.run, h)
			}
		}
	}
	return p
}

// Run runs every command configured for in, in parallel (identical
// commands once), and merges their verdicts in configuration order. A
// command that fails (timeout, crash, bad output) contributes nothing; the
// error is returned only when no command had an opinion, and logged in
// any case. A guard (PreToolUse, PermissionRequest) that could not run is
// reported to the user and follows the guardFailure policy.
func (b *Bridge) Run(ctx context.Context, in *hooks.Input) (hooks.Decision, error) {
	p := b.plan(in)
	notices := append(b.notices.Take(in.SessionID, p.skips), b.notices.TakeProblems(in.SessionID, Dialect, p.problems)...)
	hs := p.run
	if len(hs) == 0 {
		return hooks.Decision{SystemMessages: notices}, nil
	}
	stdin := renderInput(in)
	env := []string{"CLAUDE_PROJECT_DIR=" + in.Cwd}
	if in.Event == hooks.SessionStart {
		if f, err := os.CreateTemp("", "cordis-claude-env-*"); err == nil {
			name := f.Name()
			f.Close()
			env = append(env, "CLAUDE_ENV_FILE="+name)
			defer b.discardEnvFile(name)
		}
	}
	cmds := make([]hookproc.Command, len(hs))
	for i, h := range hs {
		c := hookproc.Command{
			Shell:       h.shell,
			Command:     h.command,
			Dir:         in.Cwd,
			Env:         env,
			Stdin:       stdin,
			Timeout:     timeoutFor(in.Event, h.timeout),
			OutputLimit: b.limit,
			Grace:       b.grace,
		}
		if h.args != nil {
			c.Exec = append([]string{expandProjectDir(h.command, in.Cwd)}, h.args...)
			for j := 1; j < len(c.Exec); j++ {
				c.Exec[j] = expandProjectDir(c.Exec[j], in.Cwd)
			}
		}
		cmds[i] = c
	}
	results := hookproc.RunAll(ctx, cmds, true)
	var (
		verdicts []verdict
		errs     []error
	)
	for i, res := range results {
		if res.Duplicate {
			continue
		}
		v := translate(in.Event, in, res)
		if hs[i].async {
			v.d = hooks.Decision{AdditionalContext: v.d.AdditionalContext, SystemMessages: v.d.SystemMessages}
			v.rank = rankNone
		} else if why := res.NotRun(); why != "" && v.err != nil && v.rank == rankNone && guard.Guards(in.Event) {
			b.guardDidNotRun(in, hs[i], res, why, &v)
		}
		b.logResult(in, hs[i], res, v)
		if v.err != nil {
			errs = append(errs, fmt.Errorf("claude hook %q (%s): %w", hs[i].command, in.Event, v.err))
		}
		verdicts = append(verdicts, v)
	}
	d := merge(verdicts)
	if len(errs) > 0 && isZero(d) && len(notices) == 0 {
		return d, errors.Join(errs...)
	}
	// The reports of skipped hooks come first; the failures were logged.
	d.SystemMessages = append(notices, d.SystemMessages...)
	return d, nil
}

// guardDidNotRun applies the guardFailure policy to v, the verdict of a
// guard that could not run, tells the user and records the failure (v's
// error alone would be lost when another command has an opinion).
func (b *Bridge) guardDidNotRun(in *hooks.Input, h handler, res hookproc.Result, why string, v *verdict) {
	f := guard.Failure{Dialect: dialect, Event: in.Event, Tool: in.ToolName, Command: h.command, Source: h.id.Source, Why: why}
	if b.guardFailure == guard.Deny {
		v.setPermission(rankDeny, f.Reason())
	}
	v.d.SystemMessages = append(v.d.SystemMessages, f.Message(b.guardFailure))
	guard.Record(in, b.name, h.command, h.id.Source, res, why)
}

func (b *Bridge) logResult(in *hooks.Input, h handler, res hookproc.Result, v verdict) {
	attrs := []any{"event", in.Event, "session", in.SessionID, "command", h.command, "exit", res.ExitCode, "durationMs", res.Duration.Milliseconds()}
	if res.StdoutOmitted > 0 || res.StderrOmitted > 0 {
		attrs = append(attrs, "stdoutOmitted", res.StdoutOmitted, "stderrOmitted", res.StderrOmitted)
	}
	if v.err != nil {
		msg := "claude hook failed; it has no say"
		if v.rank == rankDeny {
			msg = "claude hook could not run; the call is denied (guardFailure: deny)"
		}
		b.log.Warn(msg, append(attrs, "error", v.err.Error())...)
		return
	}
	if b.log.Enabled(context.Background(), slog.LevelDebug) {
		b.log.Debug("claude hook ran", append(attrs, "stdout", summarize(res.Stdout, 2000), "stderr", summarize(res.Stderr, 2000))...)
	}
}

func (b *Bridge) discardEnvFile(name string) {
	if info, err := os.Stat(name); err == nil && info.Size() > 0 {
		b.log.Warn("claude hooks: a SessionStart hook wrote to CLAUDE_ENV_FILE; cordis does not apply those variables to later commands", "bytes", info.Size())
	}
	os.Remove(name)
}

func isZero(d hooks.Decision) bool {
	return d.Permission == hooks.NoOpinion && !d.Block && d.Reason == "" && d.UpdatedInput == nil &&
		d.ReplaceResult == nil && len(d.AdditionalContext) == 0 && len(d.SystemMessages) == 0 && !d.StopTurn && d.StopReason == ""
}

// timeoutFor is a command's timeout: its own, or the event's default.
func timeoutFor(ev hooks.Event, own time.Duration) time.Duration {
	switch ev {
	case hooks.SessionEnd:
		t := SessionEndTimeout
		if ms, err := strconv.Atoi(os.Getenv("CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS")); err == nil && ms > 0 {
			t = time.Duration(ms) * time.Millisecond
		}
		if own > 0 {
			t = own
		}
		return min(t, SessionEndMaxTimeout)
	case hooks.UserPromptSubmit:
		if own > 0 {
			return own
		}
		return UserPromptSubmitTimeout
	}
	if own > 0 {
		return own
	}
	return DefaultTimeout
}

// expandProjectDir substitutes the ${CLAUDE_PROJECT_DIR} placeholder in the
// exec form (in the shell form the shell expands the variable itself).
func expandProjectDir(s, dir string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "${CLAUDE_PROJECT_DIR}", dir), "$CLAUDE_PROJECT_DIR", dir)
}

// ifMatches evaluates a hook's `if` permission-rule filter on a tool
// event: "Tool" or "Tool(spec)". For Bash the spec is matched against the
// command ("prefix:*" is a prefix, otherwise '*' matches anything); for
// file tools against tool_input.file_path (or path), relative specs taken
// from the session cwd, '**' matching across directories. A rule cordis
// cannot evaluate (or an event without a tool) lets the hook run: a
// governance hook is not skipped on a guess.
func ifMatches(rule string, in *hooks.Input, home string) bool {
	if in.ToolName == "" {
		return true
	}
	name, spec, hasSpec := strings.Cut(rule, "(")
	name = strings.TrimSpace(name)
	if hasSpec {
		if !strings.HasSuffix(spec, ")") {
			return true
		}
		spec = strings.TrimSuffix(spec, ")")
	}
	if name != in.ToolName {
		return false
	}
	if !hasSpec || spec == "" || spec == "*" {
		return true
	}
	fields := map[string]any{}
	_ = jsonUnmarshal(in.ToolInput, &fields)
	str := func(k string) string { s, _ := fields[k].(string); return s }
	switch in.ToolName {
	case "Bash":
		cmd := strings.TrimSpace(str("command"))
		if prefix, ok := strings.CutSuffix(spec, ":*"); ok {
			return strings.HasPrefix(cmd, prefix)
		}
		return globMatch(spec, cmd, false)
	case "Read", "Write", "Edit", "NotebookEdit", "Glob", "Grep":
		p := firstNonEmpty(str("file_path"), str("path"), str("notebook_path"))
		if p == "" {
			return true
		}
		switch {
		case strings.HasPrefix(spec, "//"):
			spec = spec[1:]
		case strings.HasPrefix(spec, "~/"):
			spec = filepath.Join(home, spec[2:])
		default: // "./x", "x" and "/x" are relative to the project
			spec = filepath.Join(in.Cwd, spec)
		}
		return globMatch(spec, p, true)
	}
	return true
}

// globMatch matches s against a pattern where '*' matches any run of
// characters (not '/' when paths is set) and '**' any run including '/'.
func globMatch(pattern, s string, paths bool) bool {
	var re strings.Builder
	re.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '*' && i+1 < len(pattern) && pattern[i+1] == '*':
			re.WriteString(".*")
			i++
			if i+1 < len(pattern) && pattern[i+1] == '/' {
				re.WriteString("/?")
				i++
			}
		case c == '*' && paths:
			re.WriteString("[^/]*")
		case c == '*':
			re.WriteString(".*")
		case c == '?':
			re.WriteString(".")
		default:
			re.WriteString(regexpQuote(string(c)))
		}
	}
	re.WriteString("$")
	m, err := compileRegexp(re.String())
	if err != nil {
		return true
	}
	return m.MatchString(s)
}
