package loop

import "github.com/cordis-agent/cordis/acp"

// builtinCommands is the slash-command list advertised after session/new
// and session/load. Slash commands are not implemented yet, so the list is
// empty: advertising a command that does nothing is worse than none.
func builtinCommands() []acp.AvailableCommand { return []acp.AvailableCommand{} }
