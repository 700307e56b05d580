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
// .agents/skills, the user's ~/.agents/skills ("" home leaves it out),
// then the administrator's /etc/codex/skills. Codex also reads
// .agents/skills in each folder above the cwd up to the repository root;
// cordis reads a project's files only inside the session's folder, so
// those are left out.
func Skills(home string) []setup.Source {
	out := []setup.Source{setup.Project(skillsDir)}
	if home != "" {
		out = append(out, setup.User(filepath.Join(home, skillsDir)))
	}
	return append(out, setup.User(AdminSkills))
}
