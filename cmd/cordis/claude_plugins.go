package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/cordis-agent/cordis/bridge/claude"
	"github.com/cordis-agent/cordis/internal/claudecode/plugins"
	"github.com/cordis-agent/cordis/internal/setup"
	"github.com/cordis-agent/cordis/internal/trust"
)

// Claude Code plugins: found by internal/claudecode/plugins, handed to
// the loop as bundles (commands, skills, subagents), to the Claude hook
// bridge as hook files, and to the MCP setup (mcpconfig.go) as servers.

// pluginFinder finds the user's Claude Code plugins; store holds the
// enablements by a project's settings that the user trusted.
func (s userSetup) pluginFinder(store *trust.Store) *plugins.Finder {
	return &plugins.Finder{
		UserDir:  s.claude.UserDir,
		Home:     s.home,
		SeedDirs: filepath.SplitList(os.Getenv(plugins.SeedDirEnv)),
		Settings: s.claude.Settings,
		Managed:  s.managedSettingsFiles,
		Trust:    store,
		// The Claude hook bridge tells a settings file that is not JSON.
		SyntaxErrorsTold: s.claudeHooksTell,
	}
}

// pluginBundles are the plugins in effect for cwd as the loop's bundles.
func pluginBundles(f *plugins.Finder) func(cwd string) []setup.Bundle {
	return func(cwd string) []setup.Bundle {
		var out []setup.Bundle
		for _, p := range f.Find(cwd).Plugins {
			out = append(out, setup.Bundle{
				Name: p.Name, Root: p.Root,
				Commands: p.Commands, Skills: p.Skills, Agents: p.Agents,
				Vars: append(p.Vars(), "CLAUDE_PROJECT_DIR="+cwd),
			})
		}
		return out
	}
}

// pluginHooks are the hook files of the plugins in effect for cwd, for
// the Claude hook bridge. A plugin's data folder is made when its hooks
// are first listed, as Claude Code makes it on first use.
func pluginHooks(f *plugins.Finder) func(cwd string) []claude.PluginHooks {
	var made sync.Map // data folders made
	return func(cwd string) []claude.PluginHooks {
		var out []claude.PluginHooks
		for _, p := range f.Find(cwd).Plugins {
			if len(p.Hooks) == 0 {
				continue
			}
			if _, done := made.LoadOrStore(p.DataDir, true); !done && p.DataDir != "" {
				os.MkdirAll(p.DataDir, 0o700)
			}
			for _, h := range p.Hooks {
				out = append(out, claude.PluginHooks{Path: h.Path, Inline: h.Inline, Vars: p.Vars()})
			}
		}
		return out
	}
}

// pluginProblems are what the user should hear about the plugins for
// cwd: plugins that could not be loaded (a broken manifest, a missing
// folder, an enablement not trusted yet), parts skipped and files that
// could not be read. A plugin the settings disable is not a problem.
func pluginProblems(set *plugins.Set) []string {
	var out []string
	out = append(out, set.Problems...)
	for _, s := range set.Skipped {
		if !strings.HasPrefix(s.Why, "disabled by ") {
			out = append(out, fmt.Sprintf("Claude Code plugin %s was not loaded: %s", s.ID, s.Why))
		}
	}
	for _, p := range set.Plugins {
		for _, pr := range p.Problems {
			out = append(out, fmt.Sprintf("Claude Code plugin %s: %s", p.ID, pr))
		}
	}
	return out
}

// pluginDoctor is the plugins' part of /doctor: each plugin loaded and
// what it contributed, each skipped and why.
func pluginDoctor(f *plugins.Finder) func(cwd string) []string {
	return func(cwd string) []string {
		set := f.Find(cwd)
		var lines []string
		for _, p := range set.Plugins {
			var parts []string
			count := func(n int, what string) {
				if n == 1 {
					parts = append(parts, "1 "+what)
				} else if n > 1 {
					parts = append(parts, fmt.Sprintf("%d %ss", n, what))
				}
			}
			count(countFiles(p.Commands, isMarkdown), "command")
			count(countFiles(p.Skills, isSkill), "skill")
			count(countFiles(p.Agents, isMarkdown), "agent")
			count(len(p.Hooks), "hook file")
			count(len(p.MCP), "MCP server")
			if len(parts) == 0 {
				parts = []string{"nothing cordis uses"}
			}
			how := "enabled"
			if p.EnabledBy != "" {
				how = "enabled by " + p.EnabledBy
			}
			lines = append(lines, fmt.Sprintf("✓ Claude Code plugin %s (%s, %s): %s", p.ID, p.Root, how, strings.Join(parts, ", ")))
			for _, pr := range p.Problems {
				lines = append(lines, "✗ Claude Code plugin "+p.ID+": "+pr)
			}
		}
		for _, s := range set.Skipped {
			lines = append(lines, fmt.Sprintf("✗ Claude Code plugin %s skipped: %s", s.ID, s.Why))
		}
		for _, pr := range set.Problems {
			lines = append(lines, "✗ Claude Code plugins: "+pr)
		}
		return lines
	}
}

func isMarkdown(rel string) bool { return strings.HasSuffix(rel, ".md") }

func isSkill(rel string) bool {
	dir, file := filepath.Split(rel)
	return file == "SKILL.md" && strings.Count(filepath.Clean(dir), string(filepath.Separator)) == 0 && dir != ""
}

// countFiles counts the files below dirs whose path relative to its
// folder passes keep.
func countFiles(dirs []string, keep func(rel string) bool) int {
	n := 0
	for _, d := range dirs {
		filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				if rel, rerr := filepath.Rel(d, p); rerr == nil && keep(rel) {
					n++
				}
			}
			return nil
		})
	}
	return n
}
