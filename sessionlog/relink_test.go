//go:build unix

package sessionlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The sessions directory is deleted while a log is open (by Create, and
// again by Open): the next Append puts the log back at its path with every
// event, so that the session is still there at the next start. Without
// relink the appends went to a file with no name and Read found nothing.
func TestAppendPutsBackADeletedLog(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions")
	path := filepath.Join(dir, "sess_a.jsonl")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	mustAppend := func(typ string) {
		t.Helper()
		if _, err := w.Append(typ, map[string]any{"n": typ}); err != nil {
			t.Fatal(err)
		}
	}
	mustAppend(TypeSessionStart)
	mustAppend(TypeTurnStart)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	mustAppend(TypeTurnEnd)
	w.Close()

	if w, err = Open(path); err != nil {
		t.Fatalf("the log was not put back: %v", err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	mustAppend(TypeTurnStart)
	mustAppend(TypeTurnEnd)
	w.Close()

	events, warnings, err := Read(path)
	if err != nil || len(warnings) > 0 {
		t.Fatalf("Read: %v %v", err, warnings)
	}
	var types []string
	for i, ev := range events {
		if ev.Seq != int64(i+1) {
			t.Errorf("event %d has seq %d", i, ev.Seq)
		}
		types = append(types, ev.Type)
	}
	if want := []string{TypeSessionStart, TypeTurnStart, TypeTurnEnd, TypeTurnStart, TypeTurnEnd}; strings.Join(types, " ") != strings.Join(want, " ") {
		t.Fatalf("events %v, want %v", types, want)
	}
}

// A log replaced by another file while open is not overwritten: Append
// fails, saying so, and the other file is left alone.
func TestAppendRefusesAReplacedLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sess_a.jsonl")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Append(TypeSessionStart, nil); err != nil {
		t.Fatal(err)
	}
	other := path + ".other"
	if err := os.WriteFile(other, []byte("someone else's\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(other, path); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Append(TypeTurnStart, nil); err == nil || !strings.Contains(err.Error(), "deleted while open") {
		t.Fatalf("Append over a replaced log = %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "someone else's\n" {
		t.Fatalf("the other file became %q", data)
	}
}
