package main

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cordis-agent/cordis/internal/codexsetup"
	"github.com/cordis-agent/cordis/internal/confine"
	"github.com/cordis-agent/cordis/internal/setup"
	"github.com/cordis-agent/cordis/internal/trust"
	"github.com/cordis-agent/cordis/loop/mcp"
)

// The MCP servers of a user's Codex setup: the [mcp_servers.<name>]
// tables of <codex home>/config.toml, and of the project's
// .codex/config.toml once approved. A project's table is merged over the
// user's of the same name, as Codex merges its configuration layers; it
// is approved when the user trusted the project in Codex itself
// ([projects."<path>"] trust_level = "trusted" in their config.toml, for
// the cwd or its repository's root) or approved its exact definition
// with `cordis trust`. Until then the user's table of that name, if any,
// is used alone.

// codexMCPTrustDialect and codexMCPTrustEvent name a project server's
// approval in the trust store, under the source
// "<project>/.codex/config.toml#mcp_servers".
const (
	codexMCPTrustDialect = "codex-mcp"
	codexMCPTrustEvent   = "mcp_servers"
)

func codexMCPTrustEntry(path string, name, definition string) trust.Hook {
	return trust.Hook{Dialect: codexMCPTrustDialect, Source: path + "#" + codexMCPTrustEvent, Event: codexMCPTrustEvent, Matcher: name, Type: "server", Command: definition}
}

// codexUserConfig reads <codex home>/config.toml ("" path without a
// codex home; a missing file is an empty config).
func (m *mcpSetup) codexUserConfig() (path string, c codexsetup.Config, err error) {
	if m.user.codex == "" {
		return "", c, nil
	}
	path = filepath.Join(m.user.codex, codexsetup.ConfigName)
	data, err := confine.ReadRegularFile(path, trust.MaxHookFile)
	if errors.Is(err, fs.ErrNotExist) {
		return path, c, nil
	}
	if err != nil {
		return path, c, err
	}
	c, err = codexsetup.ParseConfig(path, data)
	return path, c, err
}

// codexProjectConfig reads cwd's .codex/config.toml, confined to the
// project; found is false when there is none, or when it is the user's
// own (cwd is the home folder).
func (m *mcpSetup) codexProjectConfig(cwd string) (path string, c codexsetup.Config, found bool, err error) {
	path = filepath.Join(cwd, codexsetup.ProjectConfig())
	if m.user.codex != "" && trust.SamePath(filepath.Dir(path), m.user.codex) {
		return path, c, false, nil
	}
	dirs := confine.New(cwd)
	defer dirs.Close()
	data, err := dirs.ReadFile(path, trust.MaxHookFile)
	if errors.Is(err, fs.ErrNotExist) {
		return path, c, false, nil
	}
	if err != nil {
		return path, c, true, err
	}
	c, err = codexsetup.ParseConfig(path, data)
	return path, c, true, err
}

// codexServers are the Codex setup's servers for cwd, each with its
// Origin, and what the user should be told (problems, servers waiting
// for approval).
func (m *mcpSetup) codexServers(cwd string) ([]mcp.Spec, []string) {
	var out []mcp.Spec
	var notices []string
	userPath, user, err := m.codexUserConfig()
	if err != nil && !m.codexHooksTell {
		notices = append(notices, fmt.Sprintf("%v; its MCP servers are not used.", err))
	}
	notices = append(notices, user.Problems...)
	projPath, project, _, err := m.codexProjectConfig(cwd)
	if err != nil && !m.codexHooksTell {
		notices = append(notices, fmt.Sprintf("%v; its MCP servers are not used.", err))
	}
	notices = append(notices, project.Problems...)
	// Codex's own trust of the project is the user's word, in the user's
	// file; the project's file cannot vouch for itself.
	codexTrusted := user.Trusts(cwd, setup.RepoRoot(cwd))
	var waiting []string
	names := slices.Compact(slices.Sorted(slices.Values(slices.Concat(user.ServerNames(), project.ServerNames()))))
	for _, name := range names {
		layers, origin := []codexsetup.Config{user}, userPath
		if project.Has(name) {
			if codexTrusted || m.store != nil && m.store.Trusted(codexMCPTrustEntry(projPath, name, project.Definition(name))) {
				layers, origin = append(layers, project), projPath
			} else {
				waiting = append(waiting, name)
				if !user.Has(name) {
					continue
				}
			}
		}
		s, err := codexsetup.Server(name, layers...)
		if err != nil {
			notices = append(notices, fmt.Sprintf("MCP server %q in %s: %v; it is not started.", name, origin, err))
			continue
		}
		if !s.Enabled {
			continue
		}
		sp, problem := m.codexSpec(s, cwd)
		if problem != "" {
			notices = append(notices, fmt.Sprintf("MCP server %q in %s is not started: %s.", name, origin, problem))
			continue
		}
		sp.Origin = origin
		out = append(out, sp)
	}
	if len(waiting) > 0 {
		notices = append(notices, fmt.Sprintf("The project's %s has MCP servers waiting for your approval: %s. A server runs a command or reaches a URL the repository chose, so cordis starts it only once you approved its exact definition: review them with `cordis trust --list --cwd %s`, then run `cordis trust --cwd %s` (or trust the project in Codex: trust_level = \"trusted\" under [projects.\"%s\"] in %s). They start with the next session.",
			codexsetup.ProjectConfig(), strings.Join(waiting, ", "), cwd, cwd, cwd, cmp.Or(userPath, "~/.codex/config.toml")))
	}
	return out, notices
}

// codexSpec is the session's server for a Codex definition: a stdio
// server runs in its cwd (relative to the session's), an HTTP one gets
// its headers, each variable read as the user's setup may (never a
// provider key). problem says why it cannot start.
func (m *mcpSetup) codexSpec(s codexsetup.MCPServer, cwd string) (sp mcp.Spec, problem string) {
	lookup := m.lookup(nil)
	sp = mcp.Spec{Name: s.Name, StartupTimeout: s.StartupTimeout, CallTimeout: s.ToolTimeout, EnabledTools: s.EnabledTools, DisabledTools: s.DisabledTools}
	if s.Command != "" {
		sp.Command, sp.Args, sp.Env = s.Command, s.Args, s.Env
		if s.Cwd != "" {
			sp.Dir = s.Cwd
			if !filepath.IsAbs(sp.Dir) {
				sp.Dir = filepath.Join(cwd, sp.Dir)
			}
		}
		// A stdio server inherits cordis's environment (the provider keys
		// aside), so env_vars has nothing more to pass on.
		return sp, ""
	}
	sp.Type, sp.URL = "http", s.URL
	for _, h := range s.Headers {
		sp.Headers = append(sp.Headers, mcp.Header{Name: h.Name, Value: h.Value})
	}
	for _, h := range s.EnvHeaders {
		if v, ok := lookup(h.Value); ok && v != "" {
			sp.Headers = append(sp.Headers, mcp.Header{Name: h.Name, Value: v})
		}
	}
	if s.BearerTokenEnvVar != "" {
		v, ok := lookup(s.BearerTokenEnvVar)
		if !ok || v == "" {
			return sp, fmt.Sprintf("its bearer_token_env_var %s is not set", s.BearerTokenEnvVar)
		}
		sp.Headers = append(sp.Headers, mcp.Header{Name: "Authorization", Value: "Bearer " + v})
	}
	return sp, ""
}

// discoverCodex lists cwd's .codex/config.toml servers as entries
// `cordis trust` approves. A file that does not parse is reported by
// the Codex hooks' discovery (bridge/codex), not again here.
func (m *mcpSetup) discoverCodex(cwd string) []trust.Discovered {
	path, project, found, err := m.codexProjectConfig(cwd)
	if !found || err != nil || len(project.ServerNames()) == 0 {
		return nil
	}
	d := trust.Discovered{Dialect: codexMCPTrustDialect, Path: path + "#" + codexMCPTrustEvent, Problems: project.Problems}
	if _, user, err := m.codexUserConfig(); err == nil && user.Trusts(cwd, setup.RepoRoot(cwd)) {
		d.Problems = append(d.Problems, "your Codex configuration trusts this project, so its MCP servers run without this approval")
	}
	for _, name := range project.ServerNames() {
		d.Hooks = append(d.Hooks, codexMCPTrustEntry(path, name, project.Definition(name)))
	}
	return []trust.Discovered{d}
}
