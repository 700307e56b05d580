package replay

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Config is the llm/replay plugin entry (cordis.snapshot.yml).
type Config struct {
	Fixture string `yaml:"fixture" json:"fixture" jsonschema:"required,description=Folder of recorded model exchanges (fixtures/<scenario>); the snapshot harness sets it through $CORDIS_FIXTURE"`
}

// RunDirEnv names the environment variable holding the run directory: the
// channel between the snapshot harness and the provider. The harness
// writes RunFile there before starting cordis; the provider writes the
// ledger, the observed sidecars and (in record mode) the recording there.
// Without it the provider replays in memory only: no path placeholders, no
// sidecar checks, no consumption report.
const RunDirEnv = "CORDIS_REPLAY_RUN"

// Files and folders inside the run directory.
const (
	RunFile     = "run.json"
	LedgerFile  = "ledger.json"
	ObservedDir = "observed"
	RecordDir   = "record"
)

// Modes of a run.
const (
	ModeReplay = "replay"
	ModeRecord = "record"
)

// Run is the harness's instructions for one agent process (run.json).
type Run struct {
	// Mode is ModeReplay (default) or ModeRecord.
	Mode string `json:"mode,omitempty"`
	// Paths are the temporary directories of the run and the placeholders
	// that stand for them in fixtures and sidecars.
	Paths []PathVar `json:"paths,omitempty"`
	// Expected is the folder holding the expected sidecars
	// (<conversation>.system.md, <conversation>.tools.json) that requests
	// are checked against; empty skips that check (refresh and record).
	Expected string `json:"expected,omitempty"`
}

// PathVar maps a placeholder such as "{{cwd}}" to a path.
type PathVar struct {
	Placeholder string `json:"placeholder"`
	Path        string `json:"path"`
}

// WriteRun writes run.json into dir, creating it.
func WriteRun(dir string, r Run) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, RunFile), append(data, '\n'), 0o644)
}

// ReadRun reads dir/run.json.
func ReadRun(dir string) (Run, error) {
	var r Run
	data, err := os.ReadFile(filepath.Join(dir, RunFile))
	if err != nil {
		return r, fmt.Errorf("replay: run directory %s: %w", dir, err)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return r, fmt.Errorf("replay: %s: %w", filepath.Join(dir, RunFile), err)
	}
	switch r.Mode {
	case "":
		r.Mode = ModeReplay
	case ModeReplay, ModeRecord:
	default:
		return r, fmt.Errorf("replay: %s: unknown mode %q (valid: replay, record)", filepath.Join(dir, RunFile), r.Mode)
	}
	return r, nil
}
