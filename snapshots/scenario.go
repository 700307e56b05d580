package snapshots

import (
	"os"
	"path/filepath"
)

// Scenario is one folder under snapshots/.
type Scenario struct {
	Name     string
	Dir      string // snapshots/<name>
	Fixture  string // fixtures/<name>
	Repo     string // the repository root
	Manifest *Manifest
}

// ExpectedDir is where the scenario's expected files live.
func (s *Scenario) ExpectedDir() string { return filepath.Join(s.Dir, "expected") }

// LoadScenario reads snapshots/<name> of the repository at repo.
func LoadScenario(repo, name string) (*Scenario, error) {
	s := &Scenario{
		Name:    name,
		Dir:     filepath.Join(repo, "snapshots", name),
		Fixture: filepath.Join(repo, "fixtures", name),
		Repo:    repo,
	}
	m, err := LoadManifest(filepath.Join(s.Dir, ManifestFile))
	if err != nil {
		return nil, err
	}
	s.Manifest = m
	return s, nil
}

// ScenarioNames lists the scenario folders (those holding a manifest) and,
// separately, every other folder under snapshots/ (testdata and cmd, the
// replay tool, excepted).
func ScenarioNames(repo string) (scenarios, strays []string, err error) {
	entries, err := os.ReadDir(filepath.Join(repo, "snapshots"))
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "testdata" || e.Name() == "cmd" {
			continue
		}
		if _, err := os.Stat(filepath.Join(repo, "snapshots", e.Name(), ManifestFile)); err == nil {
			scenarios = append(scenarios, e.Name())
		} else {
			strays = append(strays, e.Name())
		}
	}
	return scenarios, strays, nil
}
