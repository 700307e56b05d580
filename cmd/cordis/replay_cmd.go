package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cordis-agent/cordis/llm/replay"
	"github.com/cordis-agent/cordis/snapshots"
)

const replayUsage = `Usage: cordis replay [--keep] <scenario-dir>

Runs one snapshot scenario (snapshots/<name> of a cordis checkout) against
this binary and its recorded model responses (fixtures/<name>), without an
API key, and prints the conversation: prompts, streamed text, tool calls
with their permission decisions, and hook events. Then it compares the run
with the scenario's expected files, as go test ./snapshots does.

  --keep   keep the run's temporary directories and print where they are
`

// runReplay implements `cordis replay <scenario-dir>`.
func runReplay(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("cordis replay", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	keep := fs.Bool("keep", false, "keep the temporary directories")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, replayUsage)
			return nil
		}
		return fmt.Errorf("replay: %v (see 'cordis replay --help')", err)
	}
	if fs.NArg() != 1 {
		fmt.Fprint(stderr, replayUsage)
		return errors.New("replay: want exactly one scenario folder, such as snapshots/text-turn")
	}
	dir, err := filepath.Abs(fs.Arg(0))
	if err != nil {
		return err
	}
	dir = filepath.Clean(dir)
	if filepath.Base(filepath.Dir(dir)) != "snapshots" {
		return fmt.Errorf("replay: %s is not a scenario folder (want <checkout>/snapshots/<name>)", fs.Arg(0))
	}
	repo, name := filepath.Dir(filepath.Dir(dir)), filepath.Base(dir)
	sc, err := snapshots.LoadScenario(repo, name)
	if err != nil {
		return fmt.Errorf("replay: %v", err)
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("replay: finding this binary: %v", err)
	}
	fmt.Fprintf(stdout, "scenario %s (%s): %s\n", name, sc.Manifest.Recording, oneLine(sc.Manifest.Description))
	res, err := snapshots.Run(sc, snapshots.Options{
		Binary:        exe,
		Repo:          repo,
		CheckSidecars: true,
		Keep:          *keep,
		Observer:      snapshots.NewPrinter(stdout),
	})
	if err != nil {
		return fmt.Errorf("replay: %v", err)
	}
	fmt.Fprintln(stdout)
	if *keep {
		fmt.Fprintf(stdout, "kept the run's directories in %s\n", filepath.Dir(res.RunDir))
	}
	if failures := snapshots.Failures(sc, res, replay.ModeReplay); len(failures) > 0 {
		for _, f := range failures {
			fmt.Fprintln(stdout, "✘ "+f)
		}
		return fmt.Errorf("replay: scenario %s failed (%d problems above)", name, len(failures))
	}
	got, err := snapshots.Normalize(res)
	if err != nil {
		return fmt.Errorf("replay: %v", err)
	}
	want, err := snapshots.ReadExpected(sc.ExpectedDir())
	if err != nil {
		return fmt.Errorf("replay: %v", err)
	}
	if diffs := snapshots.Diff(want, got); len(diffs) > 0 {
		fmt.Fprintln(stdout, strings.Join(diffs, "\n"))
		return fmt.Errorf("replay: scenario %s differs from its expected files (go test ./snapshots -run 'TestSnapshots/%s$' -update refreshes them)", name, name)
	}
	fmt.Fprintf(stdout, "✔ matches snapshots/%s/expected (%d files)\n", name, len(want))
	return nil
}
