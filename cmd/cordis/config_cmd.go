package main

import (
	"flag"
	"fmt"
	"io"
)

const configUsage = `Usage:
  cordis config show [--cwd DIR] [--state-dir DIR]
        show what cordis takes from Claude Code's settings for a session in
        DIR (default: the current directory): the managed (policy)
        settings, every permission rule with the file it came from and
        whether it applies, the additional directories, the defaultMode of
        each layer and whether bypassPermissions is disabled, and the
        policy's enabledPlugins and MCP rules (managed-mcp.json,
        allowedMcpServers, deniedMcpServers), each with its file

Managed settings are read from /etc/claude-code/managed-settings.json,
/etc/claude-code/managed-settings.d/*.json and /etc/claude-code/managed-mcp.json
($CORDIS_MANAGED_SETTINGS_DIR moves the folder for cordis).
`

// runConfig is `cordis config`.
func runConfig(args []string, stdout io.Writer) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(stdout, configUsage)
		if len(args) == 0 {
			return fmt.Errorf("config: no subcommand given (valid: show)")
		}
		return nil
	}
	if args[0] != "show" {
		return fmt.Errorf("config: unknown subcommand %q (valid: show)", args[0])
	}
	fs := flag.NewFlagSet("cordis config show", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cwd := fs.String("cwd", "", "project directory")
	stateDir := fs.String("state-dir", "", "state directory")
	if err := fs.Parse(args[1:]); err != nil {
		return fmt.Errorf("config show: %v (see 'cordis config help')", err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("config show: unexpected argument %q (see 'cordis config help')", fs.Arg(0))
	}
	dir, err := projectDir(*cwd, "config show")
	if err != nil {
		return err
	}
	state, err := resolveStateDir(*stateDir)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Claude Code settings for %s:\n", dir)
	for _, line := range settingsReport(findSetup(), state, dir) {
		fmt.Fprintln(stdout, line)
	}
	return nil
}
