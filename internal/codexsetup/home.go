package codexsetup

import (
	"path/filepath"

	"github.com/cordis-agent/cordis/internal/setup"
)

// HomeEnv names the variable that moves Codex's user folder.
const HomeEnv = "CODEX_HOME"

// projectDir is a project's Codex folder, relative to the project.
const projectDir = ".codex"

// ConfigName is Codex's configuration file, in its user folder and in a
// project's .codex folder.
const ConfigName = "config.toml"

// Home is Codex's user folder: $CODEX_HOME when set, else ~/.codex (""
// when neither is known).
func Home(home string, getenv func(string) string) string {
	if dir := getenv(HomeEnv); dir != "" {
		return dir
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".codex")
}

// ProjectConfig is a project's .codex/config.toml, relative to the
// project.
func ProjectConfig() string { return filepath.Join(projectDir, ConfigName) }

// Prompts are the folders of Codex's saved prompts: <codex home>/prompts
// (none without a codex home). Codex has no project prompts.
func Prompts(codexHome string) []setup.Source {
	if codexHome == "" {
		return nil
	}
	return []setup.Source{setup.User(filepath.Join(codexHome, "prompts"))}
}
