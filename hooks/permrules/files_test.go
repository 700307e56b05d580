package permrules

import (
	"github.com/cordis-agent/cordis/internal/claudecode"
	"github.com/cordis-agent/cordis/internal/setup"
)

// The files cmd/cordis gives permrules (Claude Code's layout, cordis's
// own command folders), and the project settings files the tests write.
var (
	claudeLayout = claudecode.Locate("", nil)
	testFiles    = Files{
		Settings: claudeLayout.Settings,
		Local:    claudeLayout.LocalSettings,
		Commands: setup.ProjectFirst(setup.CordisCommands(""), claudeLayout.Commands),
		Skills:   claudeLayout.Skills,
	}
	SharedSettings = claudeLayout.Settings[0].Path
	LocalSettings  = claudeLayout.LocalSettings
)
