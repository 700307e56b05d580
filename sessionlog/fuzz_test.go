package sessionlog

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzRead checks that Read never panics, that what it accepts is a proper
// log, and that Open repairs exactly what Read tolerates: after Open and one
// Append, the file reads cleanly as the same events plus the new one.
func FuzzRead(f *testing.F) {
	f.Add([]byte(ln(1) + ln(2)))
	f.Add([]byte(ln(1) + `{"v":1,"seq":2,"time":"2025`))
	f.Add([]byte(ln(1) + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		events, warnings, err := read(bytes.NewReader(data), "fuzz.jsonl")
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) || events != nil {
				t.Fatalf("err = %T %v with %d events; want *FormatError and none", err, err, len(events))
			}
			return
		}
		if len(warnings) > 1 {
			t.Fatalf("%d warnings, want at most one: %q", len(warnings), warnings)
		}
		for i, ev := range events {
			if ev.V < 1 || ev.V > Version || ev.Seq != int64(i)+1 || ev.Type == "" {
				t.Fatalf("event %d = v%d seq %d type %q", i, ev.V, ev.Seq, ev.Type)
			}
		}

		path := filepath.Join(t.TempDir(), "fuzz.jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		w, err := Open(path)
		if err != nil {
			t.Fatalf("Read accepted the log but Open refused it: %v", err)
		}
		if w.Seq() != int64(len(events)) {
			t.Fatalf("Open: Seq = %d, want %d", w.Seq(), len(events))
		}
		added, err := w.Append(TypeNotice, nil)
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		again, warnings, err := Read(path)
		if err != nil || len(warnings) != 0 {
			t.Fatalf("Read after Open+Append = %v, %q", err, warnings)
		}
		if diff := cmp.Diff(append(events, added), again); diff != "" {
			t.Fatalf("events after Open+Append (-want +got):\n%s", diff)
		}
	})
}
