package claudecode

import (
	"testing"

	"github.com/cordis-agent/cordis/internal/setup"
	"github.com/google/go-cmp/cmp"
)

// TestLocate: Claude Code's precedence in each list, the user's folder
// under home unless $CLAUDE_CONFIG_DIR moves it, none without either.
func TestLocate(t *testing.T) {
	got := Locate("/home/u", nil)
	want := Layout{
		UserDir:       "/home/u/.claude",
		Commands:      []setup.Source{setup.Project(".claude/commands"), setup.User("/home/u/.claude/commands")},
		Skills:        []setup.Source{setup.User("/home/u/.claude/skills"), setup.Project(".claude/skills")},
		Agents:        []setup.Source{setup.Project(".claude/agents"), setup.User("/home/u/.claude/agents")},
		Settings:      []setup.Source{setup.User("/home/u/.claude/settings.json"), setup.Project(".claude/settings.json"), setup.Project(".claude/settings.local.json")},
		LocalSettings: ".claude/settings.local.json",
		ManagedDir:    "/etc/claude-code",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("layout (-want +got):\n%s", diff)
	}
	env := map[string]string{ConfigDirEnv: "/cfg", ManagedDirEnv: "/policy"}
	if moved := Locate("/home/u", func(k string) string { return env[k] }); moved.UserDir != "/cfg" || moved.Commands[1].Path != "/cfg/commands" || moved.ManagedDir != "/policy" {
		t.Errorf("$CLAUDE_CONFIG_DIR not followed: %+v", moved)
	}
	if none := Locate("", nil); none.UserDir != "" || len(none.Settings) != 2 || none.Settings[0].Project != true {
		t.Errorf("without a home: %+v", none)
	}
}
