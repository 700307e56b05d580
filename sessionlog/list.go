package sessionlog

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Summary describes one session log for session/list.
type Summary struct {
	SessionID             string
	Cwd                   string
	AdditionalDirectories []string
	// Title is the first turn's prompt summary, on one line, at most
	// titleMaxRunes runes; empty when the session has no turn yet (or its
	// first turn/start lies beyond the head List reads).
	Title string
	// UpdatedAt is the time of the last complete event, or the file's
	// modification time when that cannot be read.
	UpdatedAt time.Time
	Path      string
}

// List bounds the head it reads so that listing stays cheap however long the
// sessions are: session/start comes first and the first turn/start follows
// within a few events (hook runs, injected context).
const (
	headMaxBytes  = 1 << 20
	headMaxEvents = 64
	titleMaxRunes = 80
)

// List summarizes every session log in <stateDir>/sessions (subagent logs
// excluded), most recently updated first, ties by id. It reads only the head
// and the last lines of each file. Files that are not named <ValidID>.jsonl,
// or whose head holds no readable session/start, are skipped: they cannot be
// loaded, and one bad file must not hide the others. A missing sessions
// directory is an empty list.
func List(stateDir string) ([]Summary, error) {
	dir := Dir(stateDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Summary
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || !e.Type().IsRegular() || !ValidID(id) {
			continue
		}
		if s, ok := summarize(filepath.Join(dir, e.Name()), id); ok {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b Summary) int {
		if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.SessionID, b.SessionID)
	})
	return out, nil
}

// ListForCwd is List restricted to sessions whose cwd is cwd (compared after
// filepath.Clean), for session/list's cwd filter.
func ListForCwd(stateDir, cwd string) ([]Summary, error) {
	all, err := List(stateDir)
	if err != nil {
		return nil, err
	}
	cwd = filepath.Clean(cwd)
	return slices.DeleteFunc(all, func(s Summary) bool {
		return filepath.Clean(s.Cwd) != cwd
	}), nil
}

func summarize(path, id string) (Summary, bool) {
	f, err := os.Open(path)
	if err != nil {
		return Summary{}, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Summary{}, false
	}
	s := Summary{SessionID: id, Path: path}

	lr := lineReader{br: bufio.NewReaderSize(io.NewSectionReader(f, 0, min(fi.Size(), headMaxBytes)), 64<<10)}
	haveStart := false
	for range headMaxEvents {
		line, err := lr.next()
		if err != nil {
			break
		}
		ev, err := decodeLine(line)
		if err != nil {
			break
		}
		if ev.Type == TypeSessionStart && !haveStart {
			var start struct {
				Cwd                   string   `json:"cwd"`
				AdditionalDirectories []string `json:"additionalDirectories"`
			}
			if json.Unmarshal(ev.Data, &start) != nil {
				return Summary{}, false
			}
			s.Cwd, s.AdditionalDirectories = start.Cwd, start.AdditionalDirectories
			haveStart = true
		}
		if ev.Type == TypeTurnStart {
			var turn struct {
				Prompt string `json:"prompt"`
			}
			json.Unmarshal(ev.Data, &turn) // a title is optional
			s.Title = title(turn.Prompt)
			break
		}
	}
	if !haveStart {
		return Summary{}, false
	}

	s.UpdatedAt = fi.ModTime().UTC()
	spans, _ := tailLines(f, fi.Size(), 2)
	for _, sp := range spans {
		if !sp.terminated {
			continue // torn or still being written
		}
		if t, ok := peekTime(io.NewSectionReader(f, sp.start, sp.end-sp.start)); ok {
			s.UpdatedAt = t
			break
		}
	}
	return s, true
}

// peekTime returns the top-level "time" of the JSON object in r, decoding only
// up to it: Append writes time before data, so a huge last event costs a few
// hundred bytes here, not its whole size.
func peekTime(r io.Reader) (time.Time, bool) {
	dec := json.NewDecoder(r)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return time.Time{}, false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return time.Time{}, false
		}
		if tok == "time" {
			var t time.Time
			if dec.Decode(&t) != nil {
				return time.Time{}, false
			}
			return t, true
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return time.Time{}, false
		}
	}
	return time.Time{}, false
}

// title puts a prompt on one line and cuts it to titleMaxRunes runes.
func title(prompt string) string {
	t := strings.Join(strings.Fields(prompt), " ")
	if utf8.RuneCountInString(t) <= titleMaxRunes {
		return t
	}
	r := []rune(t)
	return string(r[:titleMaxRunes-1]) + "…"
}
