package codexsetup

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cordis-agent/cordis/internal/setup"
)

func TestSkillRoots(t *testing.T) {
	want := []setup.Source{setup.ProjectUpToRepo(".agents/skills"), setup.User("/h/.agents/skills"), setup.User("/etc/codex/skills"),
		setup.Project(".codex/skills"), setup.User("/h/.codex/skills")}
	if diff := cmp.Diff(want, Skills("/h", "/h/.codex")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]setup.Source{setup.ProjectUpToRepo(".agents/skills"), setup.User("/etc/codex/skills"), setup.Project(".codex/skills")}, Skills("", "")); diff != "" {
		t.Errorf("without a home (-want +got):\n%s", diff)
	}
}

func TestHome(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if got := Home("/h", getenv); got != "/h/.codex" {
		t.Errorf("Home = %q", got)
	}
	env[HomeEnv] = "/elsewhere"
	if got := Home("/h", getenv); got != "/elsewhere" {
		t.Errorf("with $CODEX_HOME: %q", got)
	}
	if diff := cmp.Diff([]setup.Source{setup.User("/elsewhere/prompts")}, Prompts("/elsewhere")); diff != "" {
		t.Errorf("prompts (-want +got):\n%s", diff)
	}
}
