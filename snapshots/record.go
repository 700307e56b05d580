package snapshots

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cordis-agent/cordis/llm/replay"
)

// DefaultMeta is what a new fixture is recorded with.
var DefaultMeta = replay.Meta{Model: "claude-sonnet-4-5", MaxTokens: 8192}

// RecordFixture runs sc in record mode (opts.Env carries the key and the
// endpoint) and, when the run is clean, replaces the fixture's
// conversation folders with the recording. fixture.yml is kept (or created
// with DefaultMeta). Record mode is the only writer of fixtures.
func RecordFixture(sc *Scenario, opts Options) error {
	if _, err := replay.LoadMeta(sc.Fixture); err != nil {
		if _, statErr := os.Stat(filepath.Join(sc.Fixture, replay.MetaFile)); !errors.Is(statErr, fs.ErrNotExist) {
			return err
		}
		if err := replay.WriteMeta(sc.Fixture, DefaultMeta); err != nil {
			return err
		}
	}
	opts.Mode = replay.ModeRecord
	res, err := Run(sc, opts)
	if err != nil {
		return err
	}
	if f := Failures(sc, res, replay.ModeRecord); len(f) > 0 {
		return fmt.Errorf("recording %s failed; the fixture is unchanged:\n%s", sc.Name, strings.Join(f, "\n"))
	}
	// Check the recording as replay will read it before touching the
	// fixture.
	scratch, err := os.MkdirTemp(opts.TempDir, "cordis-recording-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	staged := filepath.Join(scratch, sc.Name)
	meta, err := os.ReadFile(filepath.Join(sc.Fixture, replay.MetaFile))
	if err != nil {
		return err
	}
	files := map[string][]byte{replay.MetaFile: meta}
	for rel, data := range res.Recording {
		files[rel] = data
	}
	if err := writeFiles(staged, files); err != nil {
		return err
	}
	if _, err := replay.Load(staged); err != nil {
		return fmt.Errorf("the recording of %s does not load; the fixture is unchanged: %v", sc.Name, err)
	}
	entries, err := os.ReadDir(sc.Fixture)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() != replay.MetaFile {
			if err := os.RemoveAll(filepath.Join(sc.Fixture, e.Name())); err != nil {
				return err
			}
		}
	}
	delete(files, replay.MetaFile)
	return writeFiles(sc.Fixture, files)
}

func writeFiles(dir string, files map[string][]byte) error {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		path := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, files[n], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Guards checks the tree without running anything: stray folders under
// snapshots/, scenarios without a manifest that loads, a fixture or
// expected files, fixture folders without a scenario, fixtures that do not
// load, and anything that looks like a credential in a fixture.
func Guards(repo string) []string {
	var out []string
	names, strays, err := ScenarioNames(repo)
	if err != nil {
		return []string{err.Error()}
	}
	for _, s := range strays {
		out = append(out, fmt.Sprintf("snapshots/%s has no %s: every folder under snapshots/ is a scenario", s, ManifestFile))
	}
	for _, name := range names {
		sc, err := LoadScenario(repo, name)
		if err != nil {
			out = append(out, err.Error())
			continue
		}
		if _, err := replay.Load(sc.Fixture); err != nil {
			out = append(out, fmt.Sprintf("scenario %s: %v", name, err))
		}
		filepath.WalkDir(sc.Dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") {
				rel, _ := filepath.Rel(repo, path)
				out = append(out, fmt.Sprintf("%s: a scenario folder must not hold .go files: go build ./... would compile them as a package of this module", rel))
			}
			return nil
		})
		if want, err := ReadExpected(sc.ExpectedDir()); err != nil || len(want) == 0 {
			out = append(out, fmt.Sprintf("snapshots/%s has no expected files (go test ./snapshots -run 'TestSnapshots/%s$' -update)", name, name))
		}
	}
	entries, err := os.ReadDir(filepath.Join(repo, "fixtures"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return append(out, err.Error())
	}
	for _, e := range entries {
		if !e.IsDir() {
			if e.Name() != "README.md" {
				out = append(out, fmt.Sprintf("fixtures/%s: only scenario folders belong in fixtures/", e.Name()))
			}
			continue
		}
		found := false
		for _, n := range names {
			found = found || n == e.Name()
		}
		if !found {
			out = append(out, fmt.Sprintf("fixtures/%s has no scenario snapshots/%s: remove it or add the scenario", e.Name(), e.Name()))
		}
	}
	filepath.WalkDir(filepath.Join(repo, "fixtures"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		lower := strings.ToLower(string(data))
		for _, secret := range []string{"sk-ant-", "x-api-key", "authorization: bearer"} {
			if strings.Contains(lower, secret) {
				rel, _ := filepath.Rel(repo, path)
				out = append(out, fmt.Sprintf("%s contains %q: fixtures must never hold credentials", rel, secret))
			}
		}
		return nil
	})
	return out
}
