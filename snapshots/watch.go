package snapshots

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cordis-agent/cordis/llm/replay"
)

// Watch replays the scenario sc once with a Printer on w, then says
// whether the run matches its expected files, as go test ./snapshots
// would. opts names the binaries (Binary, MCPTestServer); Repo,
// CheckSidecars and Observer are set here. The error says why the
// scenario is red.
func Watch(w io.Writer, sc *Scenario, opts Options) error {
	fmt.Fprintf(w, "scenario %s (%s): %s\n", sc.Name, sc.Manifest.Recording, oneLine(sc.Manifest.Description, 200))
	opts.Repo, opts.CheckSidecars, opts.Observer = sc.Repo, true, NewPrinter(w)
	res, err := Run(sc, opts)
	if err != nil {
		return err
	}
	fmt.Fprintln(w)
	if opts.Keep {
		fmt.Fprintf(w, "kept the run's directories in %s\n", filepath.Dir(res.RunDir))
	}
	if failures := Failures(sc, res, replay.ModeReplay); len(failures) > 0 {
		for _, f := range failures {
			fmt.Fprintln(w, "✘ "+f)
		}
		return fmt.Errorf("scenario %s failed (%d problems above)", sc.Name, len(failures))
	}
	got, err := Normalize(res)
	if err != nil {
		return err
	}
	want, err := ReadExpected(sc.ExpectedDir())
	if err != nil {
		return err
	}
	if diffs := Diff(want, got); len(diffs) > 0 {
		fmt.Fprintln(w, strings.Join(diffs, "\n"))
		return fmt.Errorf("scenario %s differs from its expected files (go test ./snapshots -run 'TestSnapshots/%s$' -update refreshes them)", sc.Name, sc.Name)
	}
	fmt.Fprintf(w, "✔ matches snapshots/%s/expected (%d files)\n", sc.Name, len(want))
	return nil
}

// FindScenario resolves what a person names a scenario by: a bare name
// (text-turn), looked up under snapshots/ of the checkout at repo, or a
// path to its folder (snapshots/text-turn, or one in another checkout).
func FindScenario(repo, arg string) (*Scenario, error) {
	if !strings.ContainsRune(arg, filepath.Separator) && !strings.ContainsRune(arg, '/') {
		if _, err := os.Stat(filepath.Join(repo, "snapshots", arg, ManifestFile)); err != nil {
			return nil, fmt.Errorf("no scenario %q under %s (each folder there holding a %s is one)", arg, filepath.Join(repo, "snapshots"), ManifestFile)
		}
		return LoadScenario(repo, arg)
	}
	dir, err := filepath.Abs(arg)
	if err != nil {
		return nil, err
	}
	if filepath.Base(filepath.Dir(dir)) != "snapshots" {
		return nil, errors.New(arg + " is not a scenario folder (want a name, or <checkout>/snapshots/<name>)")
	}
	return LoadScenario(filepath.Dir(filepath.Dir(dir)), filepath.Base(dir))
}
