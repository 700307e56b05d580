package main

import (
	"os"
	"slices"

	"github.com/cordis-agent/cordis/hooks/permrules"
	"github.com/cordis-agent/cordis/internal/claudecode"
	"github.com/cordis-agent/cordis/internal/codexsetup"
	"github.com/cordis-agent/cordis/internal/setup"
	"github.com/cordis-agent/cordis/internal/trust"
	"github.com/cordis-agent/cordis/loop/commands"
)

// userSetup is where the user's and a project's setup lives on disk:
// cordis's own command folders and Claude Code's layout. The loop and the
// built-in hooks are given it as sources and never know whose it is.
type userSetup struct {
	home string
	// codex is Codex's user folder ($CODEX_HOME, else ~/.codex; "" when
	// neither is known).
	codex  string
	claude claudecode.Layout
	// managed is the administrator's policy (Claude Code's managed
	// settings), re-read when its files change.
	managed *permrules.ManagedSource
	// claudeHooksTell is set when the Claude hook bridge reads Claude
	// Code's standard settings files: it tells the user, with line and
	// column and all that the file turns off, when one is not valid
	// JSON, so the other readers (plugins, permission rules, MCP
	// approvals) do not say it again.
	claudeHooksTell bool
	// sandbox is cordis.yml's agent.sandbox (JSON), a layer of the
	// sandbox settings above the user's Claude Code settings; sandboxFrom
	// names it.
	sandbox     []byte
	sandboxFrom string
}

// findSetup is the setup of the user running cordis: their home, and
// Claude Code's user folder following $CLAUDE_CONFIG_DIR.
func findSetup() userSetup {
	home, _ := os.UserHomeDir()
	layout := claudecode.Locate(home, os.Getenv)
	return userSetup{home: home, codex: codexsetup.Home(home, os.Getenv), claude: layout, managed: permrules.NewManagedSource(layout.ManagedDir)}
}

// commandSources are the loop's slash-command folders (cordis's over
// Claude Code's, the project's over the user's) and Claude Code's skill
// and subagent folders.
func (s userSetup) commandSources() commands.Sources {
	return commands.Sources{
		Commands: s.commandFolders(),
		Skills:   s.skillRoots(),
		Agents:   s.claude.Agents,
		// Codex's saved prompts, as /prompts:<name>.
		SavedPrompts: codexsetup.Prompts(s.codex),
	}
}

func (s userSetup) commandFolders() []setup.Source {
	return setup.ProjectFirst(setup.CordisCommands(s.home), s.claude.Commands)
}

// permissionFiles are Claude Code's settings files, and the command and
// skill folders whose allowed-tools a project's trust covers.
func (s userSetup) permissionFiles() permrules.Files {
	return permrules.Files{
		Settings: s.claude.Settings,
		Local:    s.claude.LocalSettings,
		Commands: s.commandFolders(),
		Skills:   s.skillRoots(),
		Sandbox:  permrules.SandboxLayer{Block: s.sandbox, From: s.sandboxFrom},
	}
}

// permissionTrust is permissionFiles with the trust store of stateDir,
// which holds the project rules and allowed-tools the user vouched for.
func (s userSetup) permissionTrust(stateDir string) permrules.Trust {
	return permrules.Trust{Store: trust.Open(stateDir), Files: s.permissionFiles()}
}

// skillRoots are Claude Code's skill roots, then Codex's (the same
// SKILL.md format): on a name clash the earlier wins.
func (s userSetup) skillRoots() []setup.Source {
	return slices.Concat(s.claude.Skills, codexsetup.Skills(s.home, s.codex))
}
