package main

import (
	"fmt"
	"strings"

	"github.com/cordis-agent/cordis/hooks/permrules"
	"github.com/cordis-agent/cordis/internal/trust"
	"github.com/cordis-agent/cordis/loop"
)

// managedHookFiles are the policy files whose hooks bridge/claude runs
// above every other file's.
func (s userSetup) managedHookFiles() []string { return permrules.ManagedFiles(s.managed.Dir()) }

// managedHooksOnly reports a policy under which only its own hooks run
// (allowManagedHooksOnly), in every dialect.
func (s userSetup) managedHooksOnly() bool {
	m := s.managed.Load()
	return m.HooksOnly
}

// sessionSettings reads what Claude Code's settings files and the policy
// say for a session in cwd.
func (s userSetup) sessionSettings(stateDir, cwd string) (permrules.SessionSettings, permrules.Managed) {
	m := s.managed.Load()
	t := permrules.Trust{Store: trust.Open(stateDir), Files: s.permissionFiles()}
	return s.permissionFiles().SessionSettings(cwd, s.home, m, t), m
}

// wireSessionSettings gives the loop each session's settings: the mode it
// starts in (the policy's defaultMode, else cordis.yml's
// agent.defaultMode, else a project's no more permissive than the user's,
// else the user's settings'), the settings' additionalDirectories, and
// the policy's locks (no bypassPermissions, no "Always allow" under
// allowManagedPermissionRulesOnly). configured is cordis.yml's
// agent.defaultMode ("" when unset). more adds notices of other setup
// parts (plugins that could not be loaded), told once the session opens.
func wireSessionSettings(out *loop.Config, s userSetup, stateDir, configured string, more func(cwd string) []string) {
	out.SessionSettings = func(cwd string) loop.SessionSettings {
		set, m := s.sessionSettings(stateDir, cwd)
		mode, _, notices := permrules.ResolveMode(configured, set)
		res := loop.SessionSettings{Mode: mode, NoAlwaysAllow: m.RulesOnly, Notices: append(set.Notices, notices...)}
		for _, d := range set.Directories {
			res.Directories = append(res.Directories, d.Value)
		}
		if set.BypassDisabledBy != "" {
			res.BypassDisabled = "disableBypassPermissionsMode is set in " + set.BypassDisabledBy
		}
		for _, p := range m.Problems {
			res.Notices = append(res.Notices, "cordis could not use a managed settings file: "+p)
		}
		res.Notices = append(res.Notices, more(cwd)...)
		return res
	}
}

// settingsReport is what `cordis config show` prints and /doctor lists:
// the policy, the effective permission rules and session settings of
// Claude Code's settings files for cwd, each with the file it came from.
func settingsReport(s userSetup, stateDir, cwd string) []string {
	set, m := s.sessionSettings(stateDir, cwd)
	var out []string
	switch {
	case m.Active():
		out = append(out, "✓ managed settings: "+strings.Join(m.Files, ", "))
		for _, lock := range []struct {
			on   bool
			text string
		}{{m.RulesOnly, "only managed permission rules apply (allowManagedPermissionRulesOnly)"},
			{m.HooksOnly, "only managed hooks run (allowManagedHooksOnly)"},
			{m.DisableAllHooks, "no hook runs (disableAllHooks in managed settings)"}} {
			if lock.on {
				out = append(out, "  - "+lock.text)
			}
		}
	default:
		out = append(out, "✓ managed settings: none in "+s.managed.Dir())
	}
	for _, p := range m.Problems {
		out = append(out, "✗ managed settings: "+p)
	}
	t := permrules.Trust{Store: trust.Open(stateDir), Files: s.permissionFiles()}
	for _, r := range s.permissionFiles().ListRules(cwd, s.home, m, t) {
		if r.Skipped != "" {
			out = append(out, fmt.Sprintf("✗ permission rule %s %s (%s): skipped, %s", r.Kind, r.Text, r.From, r.Skipped))
			continue
		}
		out = append(out, fmt.Sprintf("✓ permission rule %s %s (%s)", r.Kind, r.Text, r.From))
	}
	for _, d := range set.Directories {
		out = append(out, fmt.Sprintf("✓ additional directory %s (%s)", d.Value, d.From))
	}
	for _, mode := range []struct {
		name string
		v    permrules.Setting
	}{{"managed", set.ManagedMode}, {"project", set.ProjectMode}, {"user", set.UserMode}} {
		if mode.v.Value != "" {
			out = append(out, fmt.Sprintf("✓ defaultMode %s (%s settings %s)", mode.v.Value, mode.name, mode.v.From))
		}
	}
	if set.BypassDisabledBy != "" {
		out = append(out, "✓ bypassPermissions is disabled ("+set.BypassDisabledBy+")")
	}
	for _, n := range set.Notices {
		out = append(out, "✗ "+n)
	}
	return out
}
