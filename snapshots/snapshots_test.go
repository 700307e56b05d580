package snapshots

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/llm/replay"
	"github.com/cordis-agent/cordis/llm/replay/replaytest"
)

var (
	update = flag.Bool("update", false, "replay, then rewrite the expected files (never the fixtures)")
	record = flag.Bool("record", false, "record the fixtures against the live Anthropic API (ANTHROPIC_API_KEY; refused when CI is set), then rewrite the expected files")
	author = flag.Bool("author", false, "for `recording: authored` scenarios: derive the requests from the hand-written SSE bodies through a local Anthropic-wire server, then rewrite the expected files")
	keep   = flag.Bool("keep", false, "keep each run's temporary directories (their paths are printed)")
)

var (
	binary    string // cordis, built once
	mcpServer string // the test MCP server, built once next to it
	repo      string // the repository root
)

func TestMain(m *testing.M) {
	flag.Parse()
	var err error
	if repo, err = filepath.Abs(".."); err != nil {
		panic(err)
	}
	// cordis and the test MCP server are built from this checkout; the
	// scenarios may come from another tree (cordis.yml,
	// cordis.snapshot.yml, snapshots/, fixtures/), for bench/run.sh's
	// synthetic 100-scenario run.
	src := repo
	if root := os.Getenv("CORDIS_SNAPSHOTS_ROOT"); root != "" {
		repo = root
	}
	// go test caches a passing run by the files the test process opened;
	// the cordis binary is built and run in subprocesses, so look at every
	// file of the checkout here to make any change invalidate the cache.
	filepath.WalkDir(repo, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if err == nil && !d.IsDir() {
			os.Stat(path)
		}
		return nil
	})
	dir, err := os.MkdirTemp("", "cordis-snapshots-bin")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "cordis")
	args := []string{"build", "-o", binary}
	if raceEnabled {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, "./cmd/cordis")...)
	build.Dir = src
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building cordis:", err)
		os.Exit(1)
	}
	if mcpServer, err = BuildMCPTestServer(src, dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// parallelism bounds how many scenarios replay at once; each runs two
// agent processes one after the other.
var parallelism = make(chan struct{}, max(2, runtime.GOMAXPROCS(0)))

func TestSnapshots(t *testing.T) {
	names, _, err := ScenarioNames(repo)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) == 0 {
		t.Fatal("no scenarios under snapshots/")
	}
	if *record || *author {
		if err := recordAllowed(os.Getenv); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			sc, err := LoadScenario(repo, name)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case *record:
				recordScenario(t, sc, false)
			case *author:
				if sc.Manifest.Recording != "authored" {
					t.Skip("recording: live (re-record it with -record)")
				}
				recordScenario(t, sc, true)
			case *update:
				refresh(t, sc)
			default:
				t.Parallel()
				parallelism <- struct{}{}
				defer func() { <-parallelism }()
				for _, f := range verify(sc, repo) {
					t.Error(f)
				}
			}
		})
	}
}

// replayTwice replays sc twice and returns the normalized outputs, or the
// failures: the run's own, or a difference between the two runs (which
// is nondeterminism, never a change).
func replayTwice(sc *Scenario, repo string, checkSidecars bool) (Outputs, []string) {
	var outs [2]Outputs
	for i := range outs {
		opts := Options{Binary: binary, MCPTestServer: mcpServer, Repo: repo, CheckSidecars: checkSidecars, Keep: *keep, Env: raceEnv()}
		res, err := Run(sc, opts)
		if err != nil {
			return nil, []string{err.Error()}
		}
		if *keep {
			fmt.Fprintf(os.Stderr, "%s run %d kept in %s\n", sc.Name, i+1, filepath.Dir(res.RunDir))
		}
		if f := Failures(sc, res, replay.ModeReplay); len(f) > 0 {
			return nil, f
		}
		if outs[i], err = Normalize(res); err != nil {
			return nil, []string{err.Error()}
		}
	}
	if d := Diff(outs[0], outs[1]); len(d) > 0 {
		return nil, append([]string{"nondeterministic: two replays of the same recording differ (fix the cause or the normalizer, never the expected files):"}, d...)
	}
	return outs[0], nil
}

// verify replays sc (read-only) and returns every reason it is red.
func verify(sc *Scenario, repo string) []string {
	want, err := ReadExpected(sc.ExpectedDir())
	if err != nil {
		return []string{err.Error()}
	}
	if len(want) == 0 {
		return []string{fmt.Sprintf("snapshots/%s has no expected files: review the scenario, then run go test ./snapshots -run 'TestSnapshots/%s$' -update", sc.Name, sc.Name)}
	}
	got, failures := replayTwice(sc, repo, true)
	if len(failures) > 0 {
		return failures
	}
	diffs := Diff(want, got)
	if len(diffs) > 0 {
		diffs = append(diffs, fmt.Sprintf("if the change is intended: go test ./snapshots -run 'TestSnapshots/%s$' -update, and review the diff", sc.Name))
	}
	return diffs
}

// refresh replays sc and rewrites its expected files.
func refresh(t *testing.T, sc *Scenario) {
	got, failures := replayTwice(sc, repo, false)
	if len(failures) > 0 {
		t.Fatal(strings.Join(failures, "\n"))
	}
	if err := WriteExpected(sc.ExpectedDir(), got); err != nil {
		t.Fatal(err)
	}
}

// raceEnv keeps a race-enabled agent from sleeping a second at exit
// (a race still makes it exit non-zero, which fails the run).
func raceEnv() []string {
	if raceEnabled {
		return []string{"GORACE=atexit_sleep_ms=0"}
	}
	return nil
}

// recordAllowed refuses record modes on CI: a missing secret must never
// silently skip (or a present one silently spend) there.
func recordAllowed(getenv func(string) string) error {
	if ci := getenv("CI"); ci != "" && ci != "false" && ci != "0" {
		return fmt.Errorf("-record and -author rewrite fixtures and are refused when CI is set (CI=%s); run them locally and commit the result", ci)
	}
	return nil
}

// recordScenario records sc's fixture (live, or from its hand-written
// bodies through a local wire server), installs it, and refreshes the
// expected files.
func recordScenario(t *testing.T, sc *Scenario, authored bool) {
	var env []string
	if authored {
		fx, err := replaytest.LoadAuthored(sc.Fixture)
		if err != nil {
			t.Fatal(err)
		}
		ws := replaytest.NewWireServer(fx)
		srv := httptest.NewServer(ws)
		defer srv.Close()
		env = []string{"ANTHROPIC_API_KEY=authored-no-key", "ANTHROPIC_BASE_URL=" + srv.URL}
		defer func() {
			if u := ws.Unused(); u != "" && !t.Failed() {
				t.Errorf("the hand-written responses were not all used: %s", u)
			}
		}()
	} else {
		key := os.Getenv("ANTHROPIC_API_KEY")
		if key == "" {
			t.Skip("-record needs ANTHROPIC_API_KEY (the live API is called); skipping")
		}
		env = []string{"ANTHROPIC_API_KEY=" + key}
		if base := os.Getenv("ANTHROPIC_BASE_URL"); base != "" {
			env = append(env, "ANTHROPIC_BASE_URL="+base)
		}
	}
	if err := RecordFixture(sc, Options{Binary: binary, MCPTestServer: mcpServer, Repo: repo, Env: append(env, raceEnv()...), Keep: *keep}); err != nil {
		t.Fatal(err)
	}
	if !authored && sc.Manifest.Recording == "authored" {
		t.Logf("%s was recorded live: change its manifest to recording: live", sc.Name)
	}
	refresh(t, sc)
}

// TestFixtureGuards checks the tree statically: every scenario has a
// manifest, a fixture and expected files; every fixture folder has a
// scenario; fixtures load and hold no credentials.
func TestFixtureGuards(t *testing.T) {
	for _, problem := range Guards(repo) {
		t.Error(problem)
	}
}

// copyScenario lays out a scratch repository holding the repository's
// configs and one scenario with its fixture, for tests that change them.
func copyScenario(t *testing.T, name string) (string, *Scenario) {
	t.Helper()
	root := t.TempDir()
	for _, f := range []string{"cordis.yml", "cordis.snapshot.yml"} {
		data, err := os.ReadFile(filepath.Join(repo, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"snapshots", "fixtures"} {
		if err := copyTree(filepath.Join(repo, d, name), filepath.Join(root, d, name)); err != nil {
			t.Fatal(err)
		}
	}
	sc, err := LoadScenario(root, name)
	if err != nil {
		t.Fatal(err)
	}
	return root, sc
}

func editFile(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("%s does not contain %q", path, old)
	}
	if err := os.WriteFile(path, bytes.Replace(data, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

func wantFailure(t *testing.T, failures []string, substrings ...string) {
	t.Helper()
	all := strings.Join(failures, "\n")
	if len(failures) == 0 {
		t.Fatalf("the scenario stayed green; want a failure mentioning %q", substrings)
	}
	for _, s := range substrings {
		if !strings.Contains(all, s) {
			t.Fatalf("failures do not mention %q:\n%s", s, all)
		}
	}
}
