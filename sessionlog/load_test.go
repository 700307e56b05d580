package sessionlog

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A second Writer on a log that is open for appending is refused, whether
// it creates, opens or loads; once the first closes, the log opens again.
func TestSecondWriterIsLockedOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w.Append("notice", map[string]int{"n": 1})
	if _, err := Open(path); !errors.Is(err, ErrLocked) {
		t.Fatalf("Open while a writer holds the log: %v, want ErrLocked", err)
	}
	if _, _, _, err := Load(path); !errors.Is(err, ErrLocked) {
		t.Fatalf("Load while a writer holds the log: %v, want ErrLocked", err)
	}
	w.Close()
	w2, events, _, err := Load(path)
	if err != nil || len(events) != 1 {
		t.Fatalf("Load after Close = %d events, %v", len(events), err)
	}
	w2.Close()
}

// Two processes appending to one log leave a broken sequence in the
// middle: Load keeps every event before it, saves the rest beside the log,
// and the next Append continues a sound log.
func TestLoadRecoversThePrefix(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	tail := ln(2) + ln(3)
	writeFile(t, path, ln(1)+ln(2)+ln(3)+tail)
	w, events, warnings, err := Load(path, WithClock(clockFrom(4)))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if got := seqs(events); !slices.Equal(got, count(3)) {
		t.Fatalf("events = %v, want 1..3", got)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "seq 2, want 4") || !strings.Contains(warnings[0], "kept the 3 events") {
		t.Fatalf("warnings = %q", warnings)
	}
	off := int64(len(ln(1) + ln(2) + ln(3)))
	if saved := readFile(t, DroppedPath(path, off)); saved != tail {
		t.Fatalf("saved %q, want %q", saved, tail)
	}
	if _, err := w.Append("notice", map[string]int{"n": 4}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); got != ln(1)+ln(2)+ln(3)+ln(4) {
		t.Fatalf("log after append:\n%s", got)
	}
}

// A torn last line is cut without a copy (it never was an event); a line
// of a newer version is refused rather than cut off.
func TestLoadTornTailAndNewerVersion(t *testing.T) {
	dir := t.TempDir()
	torn := filepath.Join(dir, "torn.jsonl")
	writeFile(t, torn, ln(1)+`{"v":1,"seq":2,"ti`)
	w, events, warnings, err := Load(torn)
	if err != nil || len(events) != 1 || len(warnings) != 1 || !strings.Contains(warnings[0], "torn last line") {
		t.Fatalf("torn: %d events, %q, %v", len(events), warnings, err)
	}
	w.Close()
	if got := readFile(t, torn); got != ln(1) {
		t.Fatalf("torn log after Load: %q", got)
	}
	newer := filepath.Join(dir, "newer.jsonl")
	writeFile(t, newer, ln(1)+`{"v":9,"seq":2,"time":"2025-01-02T03:04:05Z","type":"x","data":{}}`+"\n")
	if _, _, _, err := Load(newer); err == nil || !strings.Contains(err.Error(), "unsupported log version") {
		t.Fatalf("newer version: %v", err)
	}
	if got := readFile(t, newer); !strings.HasPrefix(got, ln(1)) || len(got) == len(ln(1)) {
		t.Fatalf("a newer log was changed: %q", got)
	}
}

// A file of which Load would keep no event is refused with ErrNoEvents
// naming it, and left exactly as it was (before, a lone torn line was cut
// off and garbage moved aside, leaving an empty session); an empty file
// loads as a log without events that appends continue.
func TestLoadRefusesAFileWithoutEvents(t *testing.T) {
	for name, content := range map[string]string{
		"garbage":         "\x00\xffnot a log\nmore\n",
		"one torn line":   `{"v":1,"seq":1,"ty`,
		"blank line":      "\n",
		"out of sequence": ln(2) + ln(3),
	} {
		path := filepath.Join(t.TempDir(), "s.jsonl")
		writeFile(t, path, content)
		_, _, _, err := Load(path)
		if !errors.Is(err, ErrNoEvents) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: Load = %v, want ErrNoEvents naming %s", name, err, path)
		}
		if got := readFile(t, path); got != content {
			t.Errorf("%s: the file became %q", name, got)
		}
		if saved, _ := filepath.Glob(path + ".dropped-*"); len(saved) > 0 {
			t.Errorf("%s: saved aside in %v", name, saved)
		}
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	writeFile(t, path, "")
	w, events, _, err := Load(path)
	if err != nil || len(events) != 0 {
		t.Fatalf("Load of an empty file = %d events, %v", len(events), err)
	}
	defer w.Close()
	if ev, err := w.Append("notice", map[string]int{"n": 1}); err != nil || ev.Seq != 1 {
		t.Fatalf("Append after loading an empty file = seq %d, %v", ev.Seq, err)
	}
}
