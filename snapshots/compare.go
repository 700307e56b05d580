package snapshots

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cordis-agent/cordis/internal/udiff"
	"github.com/cordis-agent/cordis/llm/replay"
)

// ReadExpected reads every file under dir (a missing dir: none).
func ReadExpected(dir string) (Outputs, error) {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return Outputs{}, nil
	}
	tree, err := readTree(dir)
	return Outputs(tree), err
}

// Diff compares got with want and returns one message per differing,
// missing or unexpected file, each with a unified diff.
func Diff(want, got Outputs) []string {
	var out []string
	for _, name := range want.Names() {
		g, ok := got[name]
		if !ok {
			out = append(out, fmt.Sprintf("expected/%s: the run did not produce it (obsolete? refresh with -update)", name))
			continue
		}
		if d := udiff.Unified("expected/"+name, "actual/"+name, string(want[name]), string(g)); d != "" {
			out = append(out, d)
		}
	}
	for _, name := range got.Names() {
		if _, ok := want[name]; !ok {
			out = append(out, fmt.Sprintf("expected/%s is missing; the run produced:\n%s", name, truncate(string(got[name]), 2000)))
		}
	}
	return out
}

// WriteExpected makes dir hold exactly got.
func WriteExpected(dir string, got Outputs) error {
	old, err := ReadExpected(dir)
	if err != nil {
		return err
	}
	for name := range old {
		if _, keep := got[name]; !keep {
			if err := os.Remove(filepath.Join(dir, filepath.FromSlash(name))); err != nil {
				return err
			}
		}
	}
	for name, data := range got {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
	}
	return removeEmptyDirs(dir)
}

func removeEmptyDirs(dir string) error {
	var dirs []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && path != dir {
			dirs = append(dirs, path)
		}
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		if entries, err := os.ReadDir(dirs[i]); err == nil && len(entries) == 0 {
			if err := os.Remove(dirs[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// Failures are what makes a run red besides a diff: the harness's
// problems, the provider's mismatches and extra calls, and recorded calls
// the agent never asked for (replay mode only).
func Failures(sc *Scenario, res *Result, mode string) []string {
	out := append([]string(nil), res.Problems...)
	if res.Ledger != nil {
		out = append(out, res.Ledger.Failures...)
	}
	if mode == replay.ModeReplay {
		out = append(out, unusedRecordings(sc, res)...)
	}
	if len(out) > 0 && res.Stderr != "" {
		out = append(out, "agent log (last lines):\n"+tail(res.Stderr, 30))
	}
	return out
}

// unusedRecordings lists the recorded calls the agent never asked for.
func unusedRecordings(sc *Scenario, res *Result) []string {
	var out []string
	fx, err := replay.Load(sc.Fixture)
	if err != nil {
		return []string{err.Error()}
	}
	for _, c := range fx.Conversations {
		used := 0
		if res.Ledger != nil {
			used = min(res.Ledger.Used(c.Name), len(c.Calls))
		}
		if used < len(c.Calls) {
			var files []string
			for n := used + 1; n <= len(c.Calls); n++ {
				files = append(files, replay.CallFile(n, "response"))
			}
			out = append(out, fmt.Sprintf("unused recording: the agent never made request(s) %s of fixtures/%s/%s (it used %d of %d); re-record, or remove what the scenario no longer does",
				strings.Join(files, ", "), sc.Name, c.Name, used, len(c.Calls)))
		}
	}
	return out
}
