package builtin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/hooks/permrules"
	"github.com/cordis-agent/cordis/internal/setup"
)

// Names of the built-in hooks, as disabledHooks and the session log name
// them.
const (
	PermissionRules = "permission-rules"
	InputSanitize   = "input-sanitize"
	BudgetCheck     = "budget-check"
	AuditLog        = "audit-log"
	ResultCompress  = "result-compress"
	Metrics         = "metrics"
	ContextMonitor  = "context-monitor"
	ContextInjector = "context-injector"
	TodoEnforcer    = "todo-enforcer"
)

// Names lists every built-in hook, in the order Register considers them.
func Names() []string {
	return []string{ContextInjector, PermissionRules, InputSanitize, BudgetCheck, AuditLog, ResultCompress, Metrics, ContextMonitor, TodoEnforcer}
}

// Config is the `hooks/builtin` plugin entry of cordis.yml. DefaultConfig
// holds the defaults a file's keys are decoded over.
type Config struct {
	DisabledHooks   []string              `yaml:"disabledHooks,omitempty" json:"disabledHooks,omitempty" jsonschema:"description=Built-in hooks to register switched off (by name: context-injector / permission-rules / input-sanitize / budget-check / audit-log / result-compress / metrics / context-monitor / todo-enforcer)"`
	PermissionRules PermissionRulesConfig `yaml:"permissionRules,omitempty" json:"permissionRules,omitempty" jsonschema:"description=permission-rules: Claude Code style allow / ask / deny rules; deny wins over ask over allow"`
	InputSanitize   InputSanitizeConfig   `yaml:"inputSanitize,omitempty" json:"inputSanitize,omitempty" jsonschema:"description=input-sanitize: secrets redacted from tool input before it runs and from the audit log"`
	BudgetCheck     BudgetCheckConfig     `yaml:"budgetCheck,omitempty" json:"budgetCheck,omitempty" jsonschema:"description=budget-check: per-session token and cost limits (off while both are 0)"`
	AuditLog        AuditLogConfig        `yaml:"auditLog,omitempty" json:"auditLog,omitempty" jsonschema:"description=audit-log: one JSON line per tool execution (off while file is empty)"`
	ResultCompress  ResultCompressConfig  `yaml:"resultCompress,omitempty" json:"resultCompress,omitempty" jsonschema:"description=result-compress: long tool output cut to its head and tail (off while maxTokens is 0)"`
	ContextMonitor  ContextMonitorConfig  `yaml:"contextMonitor,omitempty" json:"contextMonitor,omitempty" jsonschema:"description=context-monitor: warns as the context window fills and requests compaction"`
	ContextInjector ContextInjectorConfig `yaml:"contextInjector,omitempty" json:"contextInjector,omitempty" jsonschema:"description=context-injector: project instruction files added to the system prompt"`
	TodoEnforcer    TodoEnforcerConfig    `yaml:"todoEnforcer,omitempty" json:"todoEnforcer,omitempty" jsonschema:"description=todo-enforcer: refuses to stop while TodoWrite items are open (off while remindersPerTurn is 0)"`
}

// DefaultConfig is what cordis runs when cordis.yml has no hooks/builtin
// entry, and what an entry's keys are decoded over: context-injector,
// input-sanitize, metrics and context-monitor on, permission-rules with no
// rules, the others configured off.
func DefaultConfig() *Config {
	return &Config{
		InputSanitize:   InputSanitizeConfig{Redact: slices.Clone(patternSetNames), SkipTools: []string{"Edit", "Write"}},
		AuditLog:        AuditLogConfig{InputSummaryChars: 200},
		ContextMonitor:  ContextMonitorConfig{WarnAt: 0.6, CompactAt: 0.7},
		ContextInjector: ContextInjectorConfig{Files: []string{"AGENTS.md", "CLAUDE.md"}},
	}
}

// Options are what Register needs besides the config.
type Options struct {
	// StateDir is where a relative audit log file lives.
	StateDir string
	// Home expands "~/" in permission rules ("" leaves it unexpanded).
	Home string
	// Settings are the settings files whose permissions apply besides
	// cordis.yml's (cmd/cordis: Claude Code's, from internal/claudecode):
	// a user's as the user's own rules, a project's allow rules only once
	// trusted. None: only cordis.yml's rules.
	Settings []setup.Source
	// TrustedRule reports whether the user vouched for rule, an allow rule
	// of the project settings file at settingsPath (permrules.Trust.Trusted);
	// nil trusts no project allow rule.
	TrustedRule func(settingsPath, rule string) bool
	// Managed is the administrator's policy (Claude Code's managed
	// settings; nil: none): its rules apply above every other source, and
	// with allowManagedPermissionRulesOnly they are the only ones.
	Managed *permrules.ManagedSource
	// SettingsSyntaxErrorsTold keeps permission-rules from telling that
	// a settings file is not valid JSON: set when another reader of the
	// same files (the Claude hook bridge) tells the user, once.
	SettingsSyntaxErrorsTold bool

	Now    func() time.Time
	Logger *slog.Logger
}

// Set is what Register registered.
type Set struct {
	// Registered names the hooks registered, on or off, in Names order.
	Registered []string
	// Metrics is the metrics hook's store (nil when not registered).
	Metrics *MetricsStore

	closers []func() error
}

// Status returns the lines /status shows for a session: the metrics.
func (s *Set) Status(sessionID string) []string {
	if s == nil || s.Metrics == nil {
		return nil
	}
	return s.Metrics.StatusLines(sessionID)
}

// Close releases the files the hooks hold open (the audit log).
func (s *Set) Close() error {
	var errs []error
	for _, c := range s.closers {
		errs = append(errs, c())
	}
	return errors.Join(errs...)
}

// registration is one built-in hook on one seam.
type registration struct {
	event    hooks.Event
	priority int
	run      func(*hooks.Input) (hooks.Decision, error)
}

// Register validates cfg and registers the built-in hooks it configures
// on r. A hook listed in DisabledHooks is registered switched off; a hook
// whose configuration turns it off is not registered at all.
func Register(r hooks.Registrar, cfg *Config, opts Options) (*Set, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	disabled := map[string]bool{}
	for _, n := range cfg.DisabledHooks {
		if !slices.Contains(Names(), n) {
			return nil, fmt.Errorf("disabledHooks: unknown hook %q (valid: %s)", n, strings.Join(Names(), ", "))
		}
		disabled[n] = true
	}
	redactor, err := newRedactor(cfg.InputSanitize)
	if err != nil {
		return nil, fmt.Errorf("inputSanitize: %w", err)
	}
	set := &Set{}
	type built struct {
		name string
		regs []registration
	}
	var all []built
	add := func(name string, regs []registration) {
		if regs != nil {
			all = append(all, built{name, regs})
		}
	}

	add(ContextInjector, contextInjectorHooks(cfg.ContextInjector))
	regs, err := permissionRulesHooks(cfg.PermissionRules, opts, disabled[PermissionRules])
	if err != nil {
		return nil, fmt.Errorf("permissionRules: %w", err)
	}
	add(PermissionRules, regs)
	add(InputSanitize, inputSanitizeHooks(cfg.InputSanitize, redactor))
	if regs, err = budgetCheckHooks(cfg.BudgetCheck); err != nil {
		return nil, fmt.Errorf("budgetCheck: %w", err)
	}
	add(BudgetCheck, regs)
	regs, closer, err := auditLogHooks(cfg.AuditLog, redactor, opts)
	if err != nil {
		return nil, fmt.Errorf("auditLog: %w", err)
	}
	if closer != nil {
		set.closers = append(set.closers, closer)
	}
	add(AuditLog, regs)
	if regs, err = resultCompressHooks(cfg.ResultCompress); err != nil {
		return nil, fmt.Errorf("resultCompress: %w", err)
	}
	add(ResultCompress, regs)
	set.Metrics = &MetricsStore{}
	add(Metrics, set.Metrics.hooks())
	if regs, err = contextMonitorHooks(cfg.ContextMonitor); err != nil {
		return nil, fmt.Errorf("contextMonitor: %w", err)
	}
	add(ContextMonitor, regs)
	if regs, err = todoEnforcerHooks(cfg.TodoEnforcer); err != nil {
		return nil, fmt.Errorf("todoEnforcer: %w", err)
	}
	add(TodoEnforcer, regs)

	for _, b := range all {
		for _, reg := range b.regs {
			run := reg.run
			o := hooks.RegisterOptions{Priority: reg.priority, Disabled: disabled[b.name]}
			if b.name == PermissionRules && opts.Managed != nil {
				// The administrator's rules cannot be switched off: with
				// a policy the hook always runs (applying only the
				// policy's rules while disabledHooks names it), and
				// /hooks cannot turn it off while the policy has rules.
				o.Disabled = false
				o.Policy = managedRulesLock(opts.Managed)
			}
			r.Register(reg.event, hooks.Func(b.name, func(_ context.Context, in *hooks.Input) (hooks.Decision, error) {
				return run(in)
			}), o)
		}
		set.Registered = append(set.Registered, b.name)
	}
	return set, nil
}
