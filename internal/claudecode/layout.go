package claudecode

import (
	"path/filepath"

	"github.com/cordis-agent/cordis/internal/setup"
)

// ConfigDirEnv moves Claude Code's user folder away from ~/.claude.
const ConfigDirEnv = "CLAUDE_CONFIG_DIR"

// ManagedDir is where Claude Code reads managed (policy) settings on
// Linux: managed-settings.json and managed-settings.d/*.json.
const ManagedDir = "/etc/claude-code"

// ManagedDirEnv moves the managed settings folder for cordis alone (tests,
// or a policy kept elsewhere); Claude Code itself has no such variable.
const ManagedDirEnv = "CORDIS_MANAGED_SETTINGS_DIR"

// projectDir is Claude Code's folder in a project.
const projectDir = ".claude"

// Layout is where Claude Code keeps each kind of file, highest precedence
// first within each list.
type Layout struct {
	// UserDir is the user's folder ($CLAUDE_CONFIG_DIR, else ~/.claude;
	// "" without either).
	UserDir string
	// Commands are slash-command folders: the project's over the user's.
	Commands []setup.Source
	// Skills are skill roots (<root>/<name>/SKILL.md): the user's over the
	// project's (personal beats project).
	Skills []setup.Source
	// Agents are custom subagent folders: the project's over the user's.
	Agents []setup.Source
	// Settings are the settings files permission rules are read from: the
	// user's settings.json, then the project's shared settings.json and
	// its local settings.local.json.
	Settings []setup.Source
	// LocalSettings is the project settings file (relative to the project)
	// where a user's "don't ask again" answers are kept.
	LocalSettings string
	// ManagedDir holds the administrator's policy files (ManagedDir, or
	// $CORDIS_MANAGED_SETTINGS_DIR).
	ManagedDir string
}

// Locate returns Claude Code's layout for the user whose home directory is
// home ("" leaves out the user's sources unless $CLAUDE_CONFIG_DIR names
// a folder), reading $CLAUDE_CONFIG_DIR through getenv (nil: unset).
func Locate(home string, getenv func(string) string) Layout {
	userDir := ""
	if getenv != nil {
		userDir = getenv(ConfigDirEnv)
	}
	if userDir == "" && home != "" {
		userDir = filepath.Join(home, projectDir)
	}
	project := func(name string) setup.Source { return setup.Project(filepath.Join(projectDir, name)) }
	user := func(name string) []setup.Source {
		if userDir == "" {
			return nil
		}
		return []setup.Source{setup.User(filepath.Join(userDir, name))}
	}
	local := filepath.Join(projectDir, "settings.local.json")
	managed := ManagedDir
	if getenv != nil && getenv(ManagedDirEnv) != "" {
		managed = getenv(ManagedDirEnv)
	}
	return Layout{
		UserDir:       userDir,
		Commands:      append([]setup.Source{project("commands")}, user("commands")...),
		Skills:        append(user("skills"), project("skills")),
		Agents:        append([]setup.Source{project("agents")}, user("agents")...),
		Settings:      append(user("settings.json"), project("settings.json"), setup.Project(local)),
		LocalSettings: local,
		ManagedDir:    managed,
	}
}
