package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cordis-agent/cordis/internal/claudecode"
	"github.com/cordis-agent/cordis/internal/claudecode/mcpjson"
	"github.com/cordis-agent/cordis/internal/claudecode/plugins"
	"github.com/cordis-agent/cordis/internal/confine"
	subproc "github.com/cordis-agent/cordis/internal/proc"
	"github.com/cordis-agent/cordis/internal/setup"
	"github.com/cordis-agent/cordis/internal/trust"
	"github.com/cordis-agent/cordis/loop/mcp"
)

// The MCP servers of a user's Claude Code setup, which join the editor's
// in every session (loop.Config.SetupMCP): the project's .mcp.json (each
// server once the user approved it), the user's ~/.claude.json (its
// top-level servers and those of the project's entry) and the plugins'.
// On a name clash the first of these wins, as in Claude Code: the user's
// entry for the project, then .mcp.json, then the user's top level, then
// the plugins' (whose names are prefixed, so they hardly clash).

// projectMCPFile is a project's MCP file, relative to the project.
const projectMCPFile = ".mcp.json"

// mcpTrustDialect and mcpTrustEvent name a project server's approval in
// the trust store, under the source "<project>/.mcp.json#mcpServers".
const (
	mcpTrustDialect = "claude-mcp"
	mcpTrustEvent   = "mcpServers"
)

// maxUserMCPFile caps ~/.claude.json, which also holds Claude Code's
// history and caches.
const maxUserMCPFile = 64 << 20

// mcpSetup finds the MCP servers of the user's setup for a project.
type mcpSetup struct {
	user    userSetup
	plugins *plugins.Finder
	store   *trust.Store
	// hidden are the variables no file may expand (the provider keys).
	hidden []string
	// codexHooksTell is set when the Codex hook bridge runs: it reads the
	// same config.toml files and tells the user, with line and column,
	// when one cannot be read or parsed, so the MCP side does not say it
	// a second time.
	codexHooksTell bool
}

func newMCPSetup(user userSetup, f *plugins.Finder, store *trust.Store, policy *subproc.EnvPolicy) *mcpSetup {
	return &mcpSetup{user: user, plugins: f, store: store, hidden: policy.Hidden()}
}

// userMCPFile is Claude Code's ~/.claude.json ($CLAUDE_CONFIG_DIR/.claude.json
// when that is set).
func (m *mcpSetup) userMCPFile() string {
	if dir := os.Getenv(claudecode.ConfigDirEnv); dir != "" {
		return filepath.Join(dir, ".claude.json")
	}
	if m.user.home == "" {
		return ""
	}
	return filepath.Join(m.user.home, ".claude.json")
}

// lookup is the environment as .mcp.json's ${VAR} sees it: the provider
// keys are never set there, whatever the file says.
func (m *mcpSetup) lookup(vars []string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		for _, kv := range vars {
			if k, v, _ := strings.Cut(kv, "="); k == name {
				return v, true
			}
		}
		if slices.Contains(m.hidden, name) {
			return "", false
		}
		return os.LookupEnv(name)
	}
}

// projectServers reads cwd's .mcp.json (confined to the project).
func projectServers(cwd string) (path string, f mcpjson.File, err error) {
	path = filepath.Join(cwd, projectMCPFile)
	dirs := confine.New(cwd)
	defer dirs.Close()
	data, err := dirs.ReadFile(path, trust.MaxHookFile)
	if err != nil {
		return path, f, err
	}
	f, err = mcpjson.Parse(path, data)
	return path, f, err
}

// mcpTrustEntry is the trust store's entry for the approval of one
// project server: its exact definition.
func mcpTrustEntry(path string, s mcpjson.Server) trust.Hook {
	return trust.Hook{Dialect: mcpTrustDialect, Source: path + "#" + mcpTrustEvent, Event: mcpTrustEvent, Matcher: s.Name, Type: "server", Command: s.Definition}
}

// approvals are the settings' enableAllProjectMcpServers,
// enabledMcpjsonServers and disabledMcpjsonServers for cwd. Only the
// user's files approve (a repository cannot approve its own servers);
// any file may reject.
func (m *mcpSetup) approvals(cwd string) (approved func(string) bool, rejected func(string) bool, problems []string) {
	var all bool
	var yes, no []string
	for _, src := range m.user.claude.Settings {
		data, err := readSettingsFile(src, cwd)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err == nil {
			var a mcpjson.Approvals
			if a, err = mcpjson.ParseApprovals(data); err == nil {
				no = append(no, a.Disabled...)
				if !src.Project {
					all = all || a.All
					yes = append(yes, a.Enabled...)
				}
				continue
			}
		}
		var syn *json.SyntaxError
		if m.user.claudeHooksTell && errors.As(err, &syn) {
			continue // the Claude hook bridge tells it, with all it turns off
		}
		problems = append(problems, fmt.Sprintf("%s: %v; its MCP approvals are not read", src.In(cwd), err))
	}
	return func(n string) bool { return all || slices.Contains(yes, n) }, func(n string) bool { return slices.Contains(no, n) }, problems
}

func readSettingsFile(src setup.Source, cwd string) ([]byte, error) {
	path := src.In(cwd)
	if !src.Project {
		return os.ReadFile(path)
	}
	dirs := confine.New(cwd)
	defer dirs.Close()
	return dirs.ReadFile(path, trust.MaxHookFile)
}

// managedMCPFile is the administrator's managed-mcp.json ("" without a
// policy folder).
func (m *mcpSetup) managedMCPFile() string {
	if m.user.managed.Dir() == "" {
		return ""
	}
	return filepath.Join(m.user.managed.Dir(), mcpjson.ManagedFile)
}

// policy is the administrator's say over MCP servers: the servers of
// managed-mcp.json when it exists (exclusive reports that: no other
// server runs, the editor's included), and the managed allowedMcpServers
// and deniedMcpServers lists, which apply to every server.
func (m *mcpSetup) policy() (exclusive *mcpjson.File, p mcpjson.Policy, problems []string) {
	managed := m.user.managed.Load()
	p, problems = mcpjson.ParsePolicy(managed.MCPAllowed, managed.MCPDenied)
	path := m.managedMCPFile()
	if path == "" {
		return nil, p, problems
	}
	data, err := confine.ReadRegularFile(path, trust.MaxHookFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, p, problems
	case err == nil:
		var f mcpjson.File
		if f, err = mcpjson.Parse(path, data); err == nil {
			return &f, p, append(problems, f.Problems...)
		}
	}
	// A policy file that cannot be read still means the administrator
	// took control: nothing runs rather than everything.
	problem := err.Error()
	if !strings.Contains(problem, path) {
		problem = path + ": " + problem
	}
	return &mcpjson.File{}, p, append(problems, problem+"; no MCP server runs until it is fixed")
}

// refuses is loop.Config.MCPPolicy: why the administrator's policy keeps
// one of the editor's servers from starting ("" when it may).
func (m *mcpSetup) refuses(sp mcp.Spec) string {
	exclusive, p, _ := m.policy()
	if exclusive != nil {
		return "the administrator's " + m.managedMCPFile() + " decides which MCP servers run"
	}
	return p.Refuses(sp.Name, specCommand(sp), sp.URL)
}

// specCommand is a stdio server's command line, as serverCommand entries
// name it (nil for a remote server).
func specCommand(sp mcp.Spec) []string {
	if sp.Command == "" {
		return nil
	}
	return append([]string{sp.Command}, sp.Args...)
}

// servers is loop.Config.SetupMCP.
func (m *mcpSetup) servers(cwd string) ([]mcp.Spec, []string) {
	var out []mcp.Spec
	var notices []string
	taken := map[string]bool{}
	// origins says where each name taken came from.
	origins := map[string]string{}
	exclusive, policy, problems := m.policy()
	notices = append(notices, problems...)
	add := func(origin string, s mcpjson.Server, vars []string) {
		if taken[s.Name] {
			return
		}
		taken[s.Name], origins[s.Name] = true, origin
		s, missing := s.Expand(m.lookup(vars))
		if why := policy.Refuses(s.Name, serverCommand(s), s.URL); why != "" {
			notices = append(notices, fmt.Sprintf("MCP server %q in %s is not started: %s.", s.Name, origin, why))
			return
		}
		if len(missing) > 0 {
			notices = append(notices, fmt.Sprintf("MCP server %q in %s: %s not set; left as written.", s.Name, origin, "${"+strings.Join(missing, "}, ${")+"}"))
		}
		sp := mcp.Spec{Name: s.Name, Type: s.Type, Command: s.Command, Args: s.Args, Env: append(slices.Clone(vars), s.Env...), URL: s.URL, Origin: origin}
		if s.Type == "stdio" {
			sp.Type = ""
		}
		for _, h := range s.Headers {
			sp.Headers = append(sp.Headers, mcp.Header{Name: h.Name, Value: h.Value})
		}
		out = append(out, sp)
	}
	if exclusive != nil {
		// Claude Code's exclusive control: the administrator's servers
		// alone, with no approval (the policy folder is root's).
		for _, s := range exclusive.Servers {
			add(m.managedMCPFile(), s, []string{"CLAUDE_PROJECT_DIR=" + cwd})
		}
		return out, notices
	}
	// The user's own, for this project (local scope).
	var user mcpjson.User
	if path := m.userMCPFile(); path != "" {
		data, err := confine.ReadRegularFile(path, maxUserMCPFile)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			notices = append(notices, fmt.Sprintf("%s: cannot read: %v; its MCP servers are not used.", path, err))
		default:
			if user, err = mcpjson.ParseUser(path, data, projectKeys(cwd)); err != nil {
				notices = append(notices, err.Error()+"; its MCP servers are not used.")
			}
		}
		notices = append(notices, user.Local.Problems...)
		notices = append(notices, user.Servers.Problems...)
		for _, s := range user.Local.Servers {
			add(path+" (this project)", s, nil)
		}
	}
	// The project's, each once approved.
	path, project, err := projectServers(cwd)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		notices = append(notices, fmt.Sprintf("%s: %v; its MCP servers are not used.", path, err))
	default:
		notices = append(notices, project.Problems...)
		approved, rejected, problems := m.approvals(cwd)
		notices = append(notices, problems...)
		var waiting []string
		for _, s := range project.Servers {
			switch {
			case taken[s.Name], rejected(s.Name):
			case approved(s.Name) || m.store.Trusted(mcpTrustEntry(path, s)):
				add(path, s, []string{"CLAUDE_PROJECT_DIR=" + cwd})
			default:
				waiting = append(waiting, s.Name)
			}
		}
		if len(waiting) > 0 {
			notices = append(notices, fmt.Sprintf("The project's %s has MCP servers waiting for your approval: %s. A server runs a command or reaches a URL the repository chose, so cordis starts it only once you approved its exact definition: review them with `cordis trust --list --cwd %s`, then run `cordis trust --cwd %s` (or name them in enabledMcpjsonServers in %s). They start with the next session.",
				projectMCPFile, strings.Join(waiting, ", "), cwd, cwd, m.userSettingsName()))
		}
	}
	// The user's top level.
	for _, s := range user.Servers.Servers {
		add(m.userMCPFile(), s, nil)
	}
	// Codex's (codex_mcp.go): after Claude Code's, which win a clash.
	codex, codexNotices := m.codexServers(cwd)
	notices = append(notices, codexNotices...)
	for _, sp := range codex {
		if other, clash := origins[sp.Name]; clash {
			notices = append(notices, fmt.Sprintf("MCP server %q in %s is not started: the one of the same name in %s is used.", sp.Name, sp.Origin, other))
			continue
		}
		origins[sp.Name] = sp.Origin
		if why := policy.Refuses(sp.Name, specCommand(sp), sp.URL); why != "" {
			notices = append(notices, fmt.Sprintf("MCP server %q in %s is not started: %s.", sp.Name, sp.Origin, why))
			continue
		}
		out = append(out, sp)
	}
	// The plugins'.
	if m.plugins != nil {
		for _, p := range m.plugins.Find(cwd).Plugins {
			for _, s := range p.MCP {
				s.Name = "plugin_" + p.Name + "_" + s.Name
				add("plugin "+p.ID, s, append(p.Vars(), "CLAUDE_PROJECT_DIR="+cwd))
			}
		}
	}
	return out, notices
}

// serverCommand is a stdio server's command line (nil for a remote one).
func serverCommand(s mcpjson.Server) []string {
	if s.Type != "stdio" {
		return nil
	}
	return append([]string{s.Command}, s.Args...)
}

func (m *mcpSetup) userSettingsName() string {
	for _, s := range m.user.claude.Settings {
		if !s.Project {
			return s.Path
		}
	}
	return "~/.claude/settings.json"
}

// discover lists cwd's .mcp.json servers (those a settings file rejects
// aside) and its .codex/config.toml servers as entries `cordis trust`
// approves.
func (m *mcpSetup) discover(cwd string) []trust.Discovered {
	return append(m.discoverMCPJSON(cwd), m.discoverCodex(cwd)...)
}

func (m *mcpSetup) discoverMCPJSON(cwd string) []trust.Discovered {
	path, project, err := projectServers(cwd)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	d := trust.Discovered{Dialect: mcpTrustDialect, Path: path + "#" + mcpTrustEvent}
	if err != nil {
		d.Problems = append(d.Problems, err.Error())
	}
	d.Problems = append(d.Problems, project.Problems...)
	_, rejected, _ := m.approvals(cwd)
	for _, s := range project.Servers {
		if !rejected(s.Name) {
			d.Hooks = append(d.Hooks, mcpTrustEntry(path, s))
		}
	}
	if len(d.Hooks) == 0 && len(d.Problems) == 0 {
		return nil
	}
	return []trust.Discovered{d}
}

// projectKeys are the keys ~/.claude.json may file cwd's project under:
// cwd, then each folder above it up to its git repository's root.
func projectKeys(cwd string) []string {
	keys := []string{cwd}
	root := setup.RepoRoot(cwd)
	if root == "" {
		return keys
	}
	for dir := filepath.Clean(cwd); dir != root; {
		dir = filepath.Dir(dir)
		keys = append(keys, dir)
	}
	return keys
}
