package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cordis-agent/cordis/bridge/claude"
	"github.com/cordis-agent/cordis/bridge/codex"
	"github.com/cordis-agent/cordis/internal/trust"
)

const hooksUsage = `Usage:
  cordis hooks trust [--cwd DIR] [--state-dir DIR]
        trust every hook in DIR's project hook files (default: the current
        directory), as they are now; a hook edited later is untrusted again
  cordis hooks list [--cwd DIR] [--state-dir DIR]
        show DIR's project hooks and whether each is trusted

Project hook files found by discovery run only once trusted: Claude
Code's DIR/.claude/settings.json and DIR/.claude/settings.local.json, and
Codex's DIR/.codex/hooks.json and the [hooks] of DIR/.codex/config.toml.
Hooks named by path in cordis.yml and user-level files
(~/.claude/settings.json, ~/.codex/hooks.json, ~/.codex/config.toml) need
no trust. Trust is kept in <state dir>/` + trust.FileName + `.
`

// hookDiscoverers find a directory's project hook files, one per dialect
// bridge, in the order they are listed.
var hookDiscoverers = []func(cwd string) []trust.Discovered{
	claude.Discover,
	codex.Discover,
	// The allow rules of Claude Code's project settings files, and the
	// allowed-tools of project commands and skills.
	func(cwd string) []trust.Discovered { return findSetup().permissionFiles().Discover(cwd) },
	// The Claude Code plugins that only the project's settings enable, and
	// the MCP servers of its .mcp.json (claude_plugins.go, mcpconfig.go).
	func(cwd string) []trust.Discovered { return findSetup().pluginFinder(nil).Discover(cwd) },
	func(cwd string) []trust.Discovered { return newMCPSetup(findSetup(), nil, nil, nil).discover(cwd) },
}

// runHooks is `cordis hooks`.
func runHooks(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(stdout, hooksUsage)
		if len(args) == 0 {
			return fmt.Errorf("hooks: no subcommand given (valid: trust, list)")
		}
		return nil
	}
	sub, rest := args[0], args[1:]
	if sub != "trust" && sub != "list" {
		return fmt.Errorf("hooks: unknown subcommand %q (valid: trust, list)", sub)
	}
	fs := flag.NewFlagSet("cordis hooks "+sub, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cwd := fs.String("cwd", "", "project directory")
	stateDir := fs.String("state-dir", "", "state directory")
	if err := fs.Parse(rest); err != nil {
		return fmt.Errorf("hooks %s: %v (see 'cordis hooks help')", sub, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("hooks %s: unexpected argument %q (see 'cordis hooks help')", sub, fs.Arg(0))
	}
	dir, err := projectDir(*cwd, "hooks "+sub)
	if err != nil {
		return err
	}
	state, err := resolveStateDir(*stateDir)
	if err != nil {
		return err
	}
	return reportHooks(dir, trust.Open(state), sub == "trust", stdout)
}

// projectDir is the absolute project directory of --cwd (default: the
// current directory); what names the command in messages.
func projectDir(flagDir, what string) (string, error) {
	dir := flagDir
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return "", err
		}
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%s: --cwd %s is not a directory", what, dir)
	}
	return dir, nil
}

// reportHooks lists dir's project hooks and their trust, and with doTrust
// trusts them all as they are now.
func reportHooks(dir string, store *trust.Store, doTrust bool, stdout io.Writer) error {
	sub := "list"
	if doTrust {
		sub = "trust"
	}
	var found []trust.Discovered
	for _, discover := range hookDiscoverers {
		found = append(found, discover(dir)...)
	}
	if len(found) == 0 {
		fmt.Fprintf(stdout, "No project hook files in %s (.claude/settings.json, .claude/settings.local.json, .codex/hooks.json, .codex/config.toml", dir)
		if home, err := os.UserHomeDir(); err == nil && trust.SamePath(home, dir) {
			fmt.Fprint(stdout, "; in the home directory they are user-level files and need no trust")
		}
		fmt.Fprintln(stdout, ").")
		return nil
	}
	untrusted := 0
	for _, d := range found {
		fmt.Fprintf(stdout, "%s (%s)\n", d.Path, d.Dialect)
		for _, p := range d.Problems {
			fmt.Fprintf(stdout, "  warning: %s\n", p)
		}
		if len(d.Hooks) == 0 {
			fmt.Fprintln(stdout, "  no hooks")
		}
		for _, h := range d.Hooks {
			st, err := store.Check(h)
			if err != nil {
				return fmt.Errorf("hooks %s: %v", sub, err)
			}
			mark := st.String()
			if st != trust.Trusted {
				untrusted++
				if sub == "trust" {
					mark = "trusted now (was " + st.String() + ")"
				}
			}
			fmt.Fprintf(stdout, "  %s — %s\n", h.Describe(), mark)
		}
		if sub == "trust" {
			if err := store.Trust(d); err != nil {
				return fmt.Errorf("hooks trust: %v", err)
			}
		}
	}
	switch {
	case sub == "trust":
		fmt.Fprintf(stdout, "Trust recorded in %s.\n", store.Path())
	case untrusted > 0:
		fmt.Fprintf(stdout, "Hooks that are not trusted are skipped (Claude and Codex alike); review them, then run `cordis hooks trust --cwd %s`.\n", dir)
	}
	return nil
}
