package codexsetup

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cordis-agent/cordis/internal/setup"
)

func TestSkillRoots(t *testing.T) {
	want := []setup.Source{setup.Project(".agents/skills"), setup.User("/h/.agents/skills"), setup.User("/etc/codex/skills")}
	if diff := cmp.Diff(want, Skills("/h")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]setup.Source{setup.Project(".agents/skills"), setup.User("/etc/codex/skills")}, Skills("")); diff != "" {
		t.Errorf("without a home (-want +got):\n%s", diff)
	}
}
