package sessionlog

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestFollowerReadsOnlyNewCompleteLines: each Next returns what was
// appended since the last one; a line without its '\n' waits until it is
// finished, then comes back whole.
func TestFollowerReadsOnlyNewCompleteLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	f := Follow(path)
	if evs, err := f.Next(); err != nil || len(evs) != 0 {
		t.Fatalf("before the file exists: %v, %v", evs, err)
	}
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, typ := range []string{TypeSessionStart, TypeTurnStart} {
		if _, err := w.Append(typ, map[string]string{"k": "v"}); err != nil {
			t.Fatal(err)
		}
	}
	evs, err := f.Next()
	if err != nil || len(evs) != 2 || evs[0].Type != TypeSessionStart || evs[1].Seq != 2 {
		t.Fatalf("first Next = %+v, %v", evs, err)
	}
	if evs, err := f.Next(); err != nil || len(evs) != 0 {
		t.Fatalf("nothing new: %v, %v", evs, err)
	}

	// A line being written: half of it now, the rest later.
	line := `{"v":1,"seq":3,"time":"2025-01-02T03:04:05Z","type":"turn/end","data":{}}` + "\n"
	raw, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	raw.WriteString(line[:20])
	before := f.Offset()
	if evs, err := f.Next(); err != nil || len(evs) != 0 || f.Offset() != before {
		t.Fatalf("unterminated line returned: %v, %v (offset %d, was %d)", evs, err, f.Offset(), before)
	}
	raw.WriteString(line[20:])
	if evs, err := f.Next(); err != nil || len(evs) != 1 || evs[0].Type != TypeTurnEnd || evs[0].Seq != 3 {
		t.Fatalf("finished line: %+v, %v", evs, err)
	}
}

// TestFollowerReportsACorruptLine: a complete line that is not an event
// is a FormatError naming its line, and the Follower stays there.
func TestFollowerReportsACorruptLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	data := `{"v":1,"seq":1,"time":"2025-01-02T03:04:05Z","type":"session/start","data":{}}` + "\nnot json\n"
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	f := Follow(path)
	for range 2 {
		evs, err := f.Next()
		var fe *FormatError
		if !errors.As(err, &fe) || fe.Line != 2 {
			t.Fatalf("Next = %v, %v; want a FormatError at line 2", evs, err)
		}
		if len(evs) > 0 && evs[0].Type != TypeSessionStart {
			t.Fatalf("events before the bad line = %+v", evs)
		}
	}
}
