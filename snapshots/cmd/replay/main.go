package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/cordis-agent/cordis/snapshots"
)

const usage = `Usage: go run ./snapshots/cmd/replay [--keep] [--cordis PATH] SCENARIO

Replays one snapshot scenario (a name such as text-turn, or a folder such
as snapshots/text-turn) against cordis built from this checkout and the
scenario's recorded model responses (fixtures/<name>), without an API key,
and prints the conversation. Then it compares the run with the scenario's
expected files, as go test ./snapshots does.

  --keep         keep the run's temporary directories and print where they are
  --cordis PATH  use this cordis binary instead of building one
`

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "replay:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	keep := fs.Bool("keep", false, "keep the temporary directories")
	cordis := fs.String("cordis", "", "a built cordis binary")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			return nil
		}
		return fmt.Errorf("%v (see --help)", err)
	}
	if fs.NArg() != 1 {
		fmt.Fprint(stderr, usage)
		return errors.New("want exactly one scenario, such as text-turn")
	}
	repo, err := checkout()
	if err != nil {
		return err
	}
	sc, err := snapshots.FindScenario(repo, fs.Arg(0))
	if err != nil {
		return err
	}
	bin, err := os.MkdirTemp("", "cordis-replay-bin-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(bin)
	opts := snapshots.Options{Binary: *cordis, Keep: *keep}
	if opts.Binary == "" {
		fmt.Fprintln(stderr, "building cordis from", repo, "(the first build takes a while)…")
		opts.Binary = filepath.Join(bin, "cordis")
		build := exec.Command("go", "build", "-o", opts.Binary, "./cmd/cordis")
		build.Dir, build.Stdout, build.Stderr = repo, stderr, stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building cordis: %v", err)
		}
	}
	if sc.Manifest.UsesMCPTestServer() {
		fmt.Fprintln(stderr, "building the test MCP server…")
		if opts.MCPTestServer, err = snapshots.BuildMCPTestServer(repo, bin); err != nil {
			return err
		}
	}
	return snapshots.Watch(stdout, sc, opts)
}

// checkout is the cordis checkout holding the working directory: the
// nearest folder upwards with a go.mod and a snapshots folder.
func checkout() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		_, modErr := os.Stat(filepath.Join(dir, "go.mod"))
		info, snapErr := os.Stat(filepath.Join(dir, "snapshots"))
		if modErr == nil && snapErr == nil && info.IsDir() {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run it inside a cordis checkout (no go.mod with a snapshots folder above the working directory)")
		}
		dir = parent
	}
}
