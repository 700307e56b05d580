package codexsetup

import (
	"path/filepath"

	"github.com/cordis-agent/cordis/internal/setup"
)

// AdminSkills is Codex's administrator skill root on Linux.
const AdminSkills = "/etc/codex/skills"

// skillsDir is Codex's skill folder, in a project and in the home folder.
var skillsDir = filepath.Join(".agents", "skills")

// Skills are Codex's skill roots (<root>/<name>/SKILL.md, the same format
// as Claude Code's), highest precedence first: the project's
// .agents/skills, then the same folder in each folder above the project
// up to its git repository's root (nearest first, read confined to the
// repository), the user's ~/.agents/skills ("" home leaves it out), the
// administrator's /etc/codex/skills; then the roots of older Codex
// releases, lower than every current one: the project's .codex/skills
// and the user's <codex home>/skills ("" codexHome leaves it out).
func Skills(home, codexHome string) []setup.Source {
	out := []setup.Source{setup.ProjectUpToRepo(skillsDir)}
	if home != "" {
		out = append(out, setup.User(filepath.Join(home, skillsDir)))
	}
	out = append(out, setup.User(AdminSkills), setup.Project(filepath.Join(projectDir, "skills")))
	if codexHome != "" {
		out = append(out, setup.User(filepath.Join(codexHome, "skills")))
	}
	return out
}
