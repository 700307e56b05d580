package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/cordis-agent/cordis/internal/trust"
)

const trustUsage = `Usage:
  cordis trust [--cwd DIR] [--state-dir DIR] [--list]
        trust what DIR (default: the current directory) brings as it is
        now: its cordis.yml, its project hook files, the Claude Code
        plugins only its settings enable and the MCP servers of its
        .mcp.json and .codex/config.toml; --list only shows what is there
        and whether it is trusted

A project's cordis.yml is read only once trusted, and edited it is
untrusted again. Even trusted, it may only tune the agent (models offered,
limits, output sizes, instruction files) and add restrictions (deny and ask
rules, lower budgets, a stricter permission mode); the settings it may not
change are listed with the reason. Project hooks: see 'cordis hooks help'.
`

// runTrust is `cordis trust`.
func runTrust(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("cordis trust", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cwd := fs.String("cwd", "", "project directory")
	stateDir := fs.String("state-dir", "", "state directory")
	list := fs.Bool("list", false, "only list")
	if len(args) > 0 && (args[0] == "help" || args[0] == "-h" || args[0] == "--help") {
		fmt.Fprint(stdout, trustUsage)
		return nil
	}
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("trust: %v (see 'cordis trust help')", err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("trust: unexpected argument %q (see 'cordis trust help')", fs.Arg(0))
	}
	dir, err := projectDir(*cwd, "trust")
	if err != nil {
		return err
	}
	state, err := resolveStateDir(*stateDir)
	if err != nil {
		return err
	}
	store := trust.Open(state)
	if err := reportProjectConfig(dir, store, !*list, stdout); err != nil {
		return err
	}
	return reportHooks(dir, store, !*list, stdout)
}

// reportProjectConfig shows dir's cordis.yml: whether it is trusted and,
// against the built-in default, which of its settings would apply. With
// doTrust it records the file's current content as trusted.
func reportProjectConfig(dir string, store *trust.Store, doTrust bool, stdout io.Writer) error {
	path, data, found, err := readProjectConfig(dir)
	switch {
	case !found:
		fmt.Fprintf(stdout, "No project configuration (%s).\n", path)
		return nil
	case err != nil:
		return fmt.Errorf("trust: %s: %v", path, err)
	}
	h := projectConfigHook(path, data)
	st, err := store.Check(h)
	if err != nil {
		return fmt.Errorf("trust: %v", err)
	}
	mark := st.String()
	if doTrust && st != trust.Trusted {
		if err := store.TrustSource(h.Dialect, h.Source, []trust.Hook{h}); err != nil {
			return fmt.Errorf("trust: %v", err)
		}
		mark = "trusted now (was " + st.String() + ")"
	}
	fmt.Fprintf(stdout, "%s (project configuration) — %s\n", path, mark)
	// What it would change, shown against the built-in default: the user's
	// own file can differ, but the settings a project may touch do not.
	o := &projectOverlay{Path: path}
	o.apply(builtinDefault(), data, newRegistry())
	if o.Err != nil {
		fmt.Fprintf(stdout, "  error: %v\n", o.Err)
	}
	if len(o.Applied) > 0 {
		fmt.Fprintf(stdout, "  applies: %s\n", strings.Join(o.Applied, ", "))
	}
	for _, r := range o.Refused {
		fmt.Fprintf(stdout, "  never applied: %s\n", r)
	}
	return nil
}
