package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/cordis-agent/cordis/hooks/permrules"
	"github.com/cordis-agent/cordis/internal/claudecode/mcpjson"
	"github.com/cordis-agent/cordis/internal/claudecode/plugins"
	"github.com/cordis-agent/cordis/internal/confine"
	"github.com/cordis-agent/cordis/internal/sandbox"
	"github.com/cordis-agent/cordis/internal/trust"
	"github.com/cordis-agent/cordis/loop"
)

// managedSettingsFiles are the policy's settings files: bridge/claude
// runs their hooks above every other file's, and the plugin finder reads
// their enabledPlugins.
func (s userSetup) managedSettingsFiles() []string { return permrules.ManagedFiles(s.managed.Dir()) }

// managedHooksOnly reports a policy under which only its own hooks run
// (allowManagedHooksOnly), in every dialect.
func (s userSetup) managedHooksOnly() bool { return s.managed.Load().HooksOnly }

// sessionSettings reads what Claude Code's settings files and the policy
// say for a session in cwd.
func (s userSetup) sessionSettings(stateDir, cwd string) (permrules.SessionSettings, permrules.Managed) {
	m := s.managed.Load()
	t := s.permissionTrust(stateDir)
	return t.Files.SessionSettings(cwd, s.home, m, t), m
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
		var sandboxNotices []string
		res.Sandbox, sandboxNotices = loopSandbox(set.Sandbox, cwd)
		res.Notices = append(res.Notices, sandboxNotices...)
		return res
	}
}

// loopSandbox turns the settings' sandbox into the loop's, and says what
// the session should tell the user: whether the sandbox is on, and where
// the kernel cannot give it, that commands are asked about instead.
func loopSandbox(sb permrules.SandboxSettings, cwd string) (loop.SandboxSettings, []string) {
	out := loop.SandboxSettings{
		Enabled: sb.Enabled, AutoAllow: sb.AutoAllow, AllowUnsandboxed: sb.AllowUnsandboxed,
		AllowWrite: sb.AllowWrite, DenyWrite: sb.DenyWrite, DenyRead: sb.DenyRead,
		AllowUnixSockets: sb.AllowUnixSockets, Source: sb.EnabledFrom,
		AllowedDomains: sb.AllowedDomains, DeniedDomains: sb.DeniedDomains,
	}
	var notices []string
	for _, e := range sb.Excluded {
		r, err := permrules.Parse("Bash("+e+")", cwd)
		if err != nil {
			notices = append(notices, fmt.Sprintf("cordis ignored the sandbox's excluded command %q: %v", e, err))
			continue
		}
		out.Excluded = append(out.Excluded, r)
	}
	status := sandbox.Check()
	switch {
	case sb.Enabled && !status.CanConfineWrites():
		notices = append(notices, "The sandbox is enabled ("+sb.EnabledFrom+") but this system cannot provide it ("+status.String()+"): every Bash command will be asked about, and runs unconfined once you approve it.")
	case sb.Enabled:
		msg := "Bash commands run in the sandbox (" + sb.EnabledFrom + "): writes only in the session's folders"
		if len(sb.AllowWrite) > 0 {
			msg += " and " + strings.Join(sb.AllowWrite, ", ")
		}
		if status.ABI >= 4 {
			msg += ", the network only through cordis's proxy (a host not in network.allowedDomains is asked about once)"
		} else {
			msg += ", no network (this kernel's Landlock cannot limit TCP to cordis's proxy)"
		}
		if sb.AutoAllow {
			msg += "; confined commands run without asking."
		} else {
			msg += "; each command is still asked about."
		}
		notices = append(notices, msg)
	}
	if !status.Available() {
		notices = append(notices, "Read-only commands (ls, cat, git status ...) are asked about too: cordis runs them unasked only inside a read-only sandbox, which this system cannot provide ("+status.String()+").")
	}
	return out, notices
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
	out = append(out, managedPluginsReport(m)...)
	out = append(out, managedMCPReport(s, m)...)
	t := s.permissionTrust(stateDir)
	for _, r := range t.Files.ListRules(cwd, s.home, m, t) {
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
	return append(out, sandboxReport(set.Sandbox)...)
}

// sandboxReport says what the kernel can confine and what the settings
// ask of the sandbox.
func sandboxReport(sb permrules.SandboxSettings) []string {
	status := sandbox.Check()
	var out []string
	if status.Available() {
		out = append(out, "✓ sandbox: "+status.String()+"; read-only commands run unasked inside the read-only sandbox")
	} else {
		out = append(out, "✗ sandbox: "+status.String()+"; read-only commands are asked about")
	}
	switch {
	case !sb.Enabled:
		out = append(out, "✓ workspace sandbox: off (sandbox.enabled in Claude Code's settings turns it on)")
	case !status.CanConfineWrites():
		out = append(out, "✗ workspace sandbox: enabled by "+sb.EnabledFrom+" but unavailable here; every Bash command is asked about")
	default:
		line := "✓ workspace sandbox: on (" + sb.EnabledFrom + ")"
		if sb.AutoAllow {
			line += ", confined commands run unasked"
		} else {
			line += ", every command asked"
		}
		if !sb.AllowUnsandboxed {
			line += ", no command leaves it"
		}
		out = append(out, line)
		for _, l := range []struct {
			name  string
			items []string
		}{{"excluded commands", sb.Excluded}, {"also writable", sb.AllowWrite}, {"read-only", sb.DenyWrite}, {"unreadable", sb.DenyRead},
			{"hosts reached without asking", sb.AllowedDomains}, {"hosts never reached", sb.DeniedDomains}} {
			if len(l.items) > 0 {
				out = append(out, "  - "+l.name+": "+strings.Join(l.items, ", "))
			}
		}
		if status.ABI < 4 {
			out = append(out, "✗ network: this kernel's Landlock cannot limit TCP to cordis's proxy, so confined commands reach no network")
		}
	}
	return out
}

// managedPluginsReport lists the policy's enabledPlugins, each with the
// file whose entry is in force: true enables a plugin for every project,
// false blocks it whatever another settings file says. Only the files
// that parsed are read (the others are already reported).
func managedPluginsReport(m permrules.Managed) []string {
	entries, problems := plugins.EnabledIn(m.Files)
	var out []string
	for _, e := range entries {
		what := "enabled for every project"
		if !e.Enabled {
			what = "blocked: no other settings file can enable it"
		}
		out = append(out, fmt.Sprintf("✓ managed enabledPlugins: %s %s (%s)", e.ID, what, e.File))
	}
	for _, p := range problems {
		out = append(out, "✗ managed enabledPlugins: "+p)
	}
	return out
}

// managedMCPReport lists the administrator's say over MCP servers:
// managed-mcp.json when it exists (then only its servers run, the
// editor's too), and the allowedMcpServers and deniedMcpServers lists
// with the policy files that set them.
func managedMCPReport(s userSetup, m permrules.Managed) []string {
	ms := &mcpSetup{user: s}
	exclusive, p, problems := ms.policy()
	var out []string
	if exclusive != nil {
		names := make([]string, 0, len(exclusive.Servers))
		for _, srv := range exclusive.Servers {
			names = append(names, srv.Name)
		}
		list := " (" + strings.Join(names, ", ") + ")"
		if len(names) == 0 {
			list = "; it defines none, so no MCP server runs"
		}
		out = append(out, fmt.Sprintf("✓ managed MCP servers: %s is in force: only its servers run, the editor's and the setup's are refused%s", ms.managedMCPFile(), list))
	}
	for _, l := range []struct {
		key     string
		entries []mcpjson.PolicyEntry
		set     bool
	}{{"allowedMcpServers", p.Allowed, len(m.MCPAllowed) > 0 && string(m.MCPAllowed) != "null"},
		{"deniedMcpServers", p.Denied, len(m.MCPDenied) > 0 && string(m.MCPDenied) != "null"}} {
		if !l.set || slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, " "+l.key+": ") }) {
			continue // not set, or told below as a list that does not parse
		}
		from := strings.Join(managedFilesWithKey(m.Files, l.key), ", ")
		if len(l.entries) == 0 {
			what := "empty: no MCP server may run"
			if l.key == "deniedMcpServers" {
				what = "empty"
			}
			out = append(out, fmt.Sprintf("✓ managed %s %s (%s)", l.key, what, from))
			continue
		}
		var items []string
		for _, e := range l.entries {
			switch {
			case e.ServerName != "":
				items = append(items, "serverName "+e.ServerName)
			case len(e.ServerCommand) > 0:
				items = append(items, fmt.Sprintf("serverCommand %q", e.ServerCommand))
			default:
				items = append(items, "serverUrl "+e.ServerURL)
			}
		}
		out = append(out, fmt.Sprintf("✓ managed %s: %s (%s)", l.key, strings.Join(items, "; "), from))
	}
	for _, pr := range problems {
		out = append(out, "✗ "+pr)
	}
	return out
}

// managedFilesWithKey are the policy files that set key at the top level
// (a list merges over every file that has it).
func managedFilesWithKey(files []string, key string) []string {
	var out []string
	for _, path := range files {
		data, err := confine.ReadRegularFile(path, trust.MaxHookFile)
		if err != nil {
			continue
		}
		var top map[string]json.RawMessage
		if json.Unmarshal(data, &top) == nil {
			if _, ok := top[key]; ok {
				out = append(out, path)
			}
		}
	}
	return out
}
