package commands

import (
	"github.com/cordis-agent/cordis/internal/claudecode"
	"github.com/cordis-agent/cordis/internal/setup"
)

// testSources are the sources cmd/cordis gives the registry for a user
// whose home is home ("": none): cordis's own command folders and Claude
// Code's layout, its user folder moved by getenv's $CLAUDE_CONFIG_DIR
// (nil: unset).
func testSources(home string, getenv func(string) string) Sources {
	cc := claudecode.Locate(home, getenv)
	return Sources{Commands: setup.ProjectFirst(setup.CordisCommands(home), cc.Commands), Skills: cc.Skills, Agents: cc.Agents}
}
