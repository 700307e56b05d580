package loop_test

import (
	"github.com/cordis-agent/cordis/hooks/permrules"
	"github.com/cordis-agent/cordis/internal/claudecode"
	"github.com/cordis-agent/cordis/internal/setup"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/commands"
)

// projectFiles are the permission files cmd/cordis gives the permission
// rules (Claude Code's layout), without a user's.
var projectFiles = func() permrules.Files {
	cc := claudecode.Locate("", nil)
	return permrules.Files{Settings: cc.Settings, Local: cc.LocalSettings, Commands: setup.ProjectFirst(setup.CordisCommands(""), cc.Commands), Skills: cc.Skills}
}()

// withHome gives c the user whose home is home and the command, skill and
// agent folders cmd/cordis gives the loop for them: cordis's own and
// Claude Code's (without $CLAUDE_CONFIG_DIR).
func withHome(c *loop.Config, home string) {
	cc := claudecode.Locate(home, nil)
	c.Home = home
	c.Sources = commands.Sources{Commands: setup.ProjectFirst(setup.CordisCommands(home), cc.Commands), Skills: cc.Skills, Agents: cc.Agents}
}
