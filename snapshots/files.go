package snapshots

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// readLogs reads the session logs of sessions (in order), each followed by
// its subagent logs in the order the session started them; logs of
// sessions the editor never saw come last, by name.
func readLogs(state string, sessions []string) ([]Log, error) {
	dir := filepath.Join(state, "sessions")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".jsonl") {
			ids = append(ids, strings.TrimSuffix(e.Name(), ".jsonl"))
		}
	}
	ordered := []string{}
	for _, s := range sessions {
		if slices.Contains(ids, s) && !slices.Contains(ordered, s) {
			ordered = append(ordered, s)
		}
	}
	for _, id := range ids {
		if !slices.Contains(ordered, id) {
			ordered = append(ordered, id)
		}
	}
	var logs []Log
	for _, id := range ordered {
		data, err := os.ReadFile(filepath.Join(dir, id+".jsonl"))
		if err != nil {
			return nil, err
		}
		logs = append(logs, Log{SessionID: id, Data: data})
		subDir := filepath.Join(dir, id, "subagents")
		subs, err := os.ReadDir(subDir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		var names []string
		for _, s := range subs {
			// *.transcript.jsonl are Claude-style transcripts derived from
			// the log for hooks (transcript_path), not session logs.
			if strings.HasSuffix(s.Name(), ".jsonl") && !strings.HasSuffix(s.Name(), ".transcript.jsonl") {
				names = append(names, strings.TrimSuffix(s.Name(), ".jsonl"))
			}
		}
		for _, agent := range subagentOrder(data, names) {
			sub, err := os.ReadFile(filepath.Join(subDir, agent+".jsonl"))
			if err != nil {
				return nil, err
			}
			logs = append(logs, Log{SessionID: id, AgentID: agent, Data: sub})
		}
	}
	return logs, nil
}

// subagentOrder orders agent ids by their subagent/start events in the
// parent log; unknown ones follow by name.
func subagentOrder(parent []byte, names []string) []string {
	var out []string
	for _, line := range strings.Split(string(parent), "\n") {
		var ev struct {
			Type string `json:"type"`
			Data struct {
				AgentID string `json:"agentId"`
			} `json:"data"`
		}
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "subagent/start" &&
			slices.Contains(names, ev.Data.AgentID) && !slices.Contains(out, ev.Data.AgentID) {
			out = append(out, ev.Data.AgentID)
		}
	}
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// readFlat reads the regular files of dir (missing dir: none).
func readFlat(dir string) (map[string][]byte, error) {
	out := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.Type().IsRegular() {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				return nil, err
			}
			out[e.Name()] = data
		}
	}
	return out, nil
}

// readTree reads every regular file under dir, keyed by slash path.
func readTree(dir string) (map[string][]byte, error) {
	out := map[string][]byte{}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = data
		return nil
	})
	return out, err
}

// copyTree copies src into dst (a missing src copies nothing).
func copyTree(src, dst string) error {
	if _, err := os.Stat(src); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: only regular files and folders may be in a scenario", path)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, info.Mode().Perm())
	})
}
