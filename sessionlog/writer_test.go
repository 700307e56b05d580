package sessionlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestAppendReadRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sessions", "sess_a.jsonl")
	w, err := Create(path, WithClock(clockFrom(1)))
	if err != nil {
		t.Fatal(err)
	}
	appends := []struct {
		typ  string
		data any
	}{
		{TypeSessionStart, map[string]any{"sessionId": "sess_a", "cwd": "/w"}},
		{TypeTurnStart, map[string]any{"turnId": "t1", "prompt": "a <b> & \"c\"\nd"}},
		{TypeMessage, json.RawMessage("{\n  \"role\": \"user\"\n}")},
		{TypeTurnEnd, nil},
	}
	var got []Event
	for _, a := range appends {
		ev, err := w.Append(a.typ, a.data)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	wantFile := `{"v":1,"seq":1,"time":"2025-01-02T03:04:06Z","type":"session/start","data":{"cwd":"/w","sessionId":"sess_a"}}
{"v":1,"seq":2,"time":"2025-01-02T03:04:07Z","type":"turn/start","data":{"prompt":"a <b> & \"c\"\nd","turnId":"t1"}}
{"v":1,"seq":3,"time":"2025-01-02T03:04:08Z","type":"context/message","data":{"role":"user"}}
{"v":1,"seq":4,"time":"2025-01-02T03:04:09Z","type":"turn/end","data":null}
`
	if diff := cmp.Diff(wantFile, readFile(t, path)); diff != "" {
		t.Errorf("file (-want +got):\n%s", diff)
	}
	want := []Event{
		{V: 1, Seq: 1, Time: t0.Add(1 * time.Second), Type: TypeSessionStart, Data: json.RawMessage(`{"cwd":"/w","sessionId":"sess_a"}`)},
		{V: 1, Seq: 2, Time: t0.Add(2 * time.Second), Type: TypeTurnStart, Data: json.RawMessage(`{"prompt":"a <b> & \"c\"\nd","turnId":"t1"}`)},
		{V: 1, Seq: 3, Time: t0.Add(3 * time.Second), Type: TypeMessage, Data: json.RawMessage(`{"role":"user"}`)},
		{V: 1, Seq: 4, Time: t0.Add(4 * time.Second), Type: TypeTurnEnd, Data: json.RawMessage(`null`)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Append results (-want +got):\n%s", diff)
	}
	events, warnings, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, events); diff != "" {
		t.Errorf("Read (-want +got):\n%s", diff)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings = %q, want none", warnings)
	}
}

func TestAppendNanosecondsAndZones(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.jsonl")
	local := time.Date(2025, 6, 7, 10, 0, 0, 123456789, time.FixedZone("X", 2*3600))
	w, err := Create(path, WithClock(func() time.Time { return local }))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Append(TypeNotice, 1); err != nil {
		t.Fatal(err)
	}
	want := `{"v":1,"seq":1,"time":"2025-06-07T08:00:00.123456789Z","type":"notice","data":1}` + "\n"
	if got := readFile(t, path); got != want {
		t.Errorf("file = %q, want %q", got, want)
	}
}

func TestAppendErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.jsonl")
	w, err := Create(path, WithClock(clockFrom(1)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Append("", 1); err == nil {
		t.Error("Append with empty type: no error")
	}
	if _, err := w.Append(TypeNotice, func() {}); err == nil {
		t.Error("Append of unmarshalable data: no error")
	}
	if _, err := w.Append(TypeNotice, json.RawMessage("{bad")); err == nil {
		t.Error("Append of invalid RawMessage: no error")
	}
	badYear := WithClock(func() time.Time { return time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) })
	w2, err := Create(filepath.Join(dir, "y.jsonl"), badYear)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w2.Append(TypeNotice, 1); err == nil {
		t.Error("Append with year 10000: no error")
	}
	w2.Close()
	// Failed appends consume no seq and write nothing.
	if ev, err := w.Append(TypeNotice, map[string]int{"n": 1}); err != nil || ev.Seq != 1 {
		t.Errorf("Append = seq %d, %v; want seq 1, nil", ev.Seq, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
	if _, err := w.Append(TypeNotice, 1); !errors.Is(err, ErrClosed) {
		t.Errorf("Append after Close = %v, want ErrClosed", err)
	}
	if got := readFile(t, path); got != ln(1) {
		t.Errorf("file = %q, want %q", got, ln(1))
	}
	if _, err := Create(path); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Create over an existing log = %v, want ErrExist", err)
	}
	if _, err := Open(filepath.Join(dir, "missing.jsonl")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open of a missing log = %v, want ErrNotExist", err)
	}
}

func TestAppendLineLimit(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("allocates 64 MiB")
	}
	// Data just under the limit still overflows it once the envelope is added.
	huge := bytes.Repeat([]byte{'x'}, MaxLineSize-10)
	huge[0], huge[len(huge)-1] = '"', '"'
	_, err := encodeLine(Event{V: 1, Seq: 1, Time: t0, Type: TypeToolResult, Data: huge})
	if want := "67108929-byte line exceeds the 67108864-byte limit"; err == nil || err.Error() != want {
		t.Errorf("encodeLine of an over-long event = %v, want %s", err, want)
	}

	w, err := Create(filepath.Join(t.TempDir(), "x.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if ev, err := w.Append(TypeToolResult, strings.Repeat("x", 8<<20)); err != nil || ev.Seq != 1 {
		t.Errorf("Append of 8 MiB = seq %d, %v; want seq 1, nil", ev.Seq, err)
	}
	events, _, err := Read(w.Path())
	if err != nil || len(events) != 1 || len(events[0].Data) != 8<<20+2 {
		t.Errorf("Read = %d events, %v; want one 8 MiB event", len(events), err)
	}
}

func TestConcurrentAppend(t *testing.T) {
	const goroutines, perG = 8, 200
	path := filepath.Join(t.TempDir(), "x.jsonl")
	w, err := Create(path, WithClock(clockFrom(1)))
	if err != nil {
		t.Fatal(err)
	}
	type rec struct{ G, I int }
	got := make([][]int64, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range perG {
				ev, err := w.Append(TypeNotice, rec{g, i})
				if err != nil {
					t.Error(err)
					return
				}
				got[g] = append(got[g], ev.Seq)
			}
		})
	}
	// A reader running alongside sees a valid prefix every time.
	stop := make(chan struct{})
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		for {
			select {
			case <-stop:
				return
			default:
			}
			events, _, err := Read(path)
			if err != nil {
				t.Errorf("concurrent Read: %v", err)
				return
			}
			if diff := cmp.Diff(count(len(events)), seqs(events)); diff != "" {
				t.Errorf("concurrent Read seqs (-want +got):\n%s", diff)
				return
			}
		}
	}()
	wg.Wait()
	close(stop)
	<-readerDone
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	seen := map[int64]bool{}
	for g, ss := range got {
		for i, s := range ss {
			if seen[s] {
				t.Fatalf("seq %d returned twice", s)
			}
			seen[s] = true
			if i > 0 && s <= ss[i-1] {
				t.Errorf("goroutine %d: seq %d after %d", g, s, ss[i-1])
			}
		}
	}
	events, warnings, err := Read(path)
	if err != nil || len(warnings) != 0 {
		t.Fatalf("Read = %v, %q", err, warnings)
	}
	if diff := cmp.Diff(count(goroutines*perG), seqs(events)); diff != "" {
		t.Fatalf("seqs (-want +got):\n%s", diff)
	}
	// Each goroutine's events appear in its own order.
	next := make([]int, goroutines)
	for _, ev := range events {
		var r rec
		if err := json.Unmarshal(ev.Data, &r); err != nil {
			t.Fatal(err)
		}
		if r.I != next[r.G] {
			t.Fatalf("seq %d: goroutine %d event %d, want %d", ev.Seq, r.G, r.I, next[r.G])
		}
		next[r.G]++
	}
}

func TestReopenContinuesSeq(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.jsonl")
	w, err := Create(path, WithClock(clockFrom(1)))
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		if _, err := w.Append(TypeNotice, map[string]int{"n": i}); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()

	w, err = Open(path, WithClock(clockFrom(4)))
	if err != nil {
		t.Fatal(err)
	}
	if w.Seq() != 3 || len(w.Warnings()) != 0 {
		t.Fatalf("after Open: Seq = %d, warnings %q; want 3, none", w.Seq(), w.Warnings())
	}
	for i := 4; i <= 5; i++ {
		if _, err := w.Append(TypeNotice, map[string]int{"n": i}); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	if diff := cmp.Diff(ln(1)+ln(2)+ln(3)+ln(4)+ln(5), readFile(t, path)); diff != "" {
		t.Errorf("file (-want +got):\n%s", diff)
	}
}

// TestOpenRepairsTail covers every tail Read tolerates or rejects: Open must
// keep every complete event, drop only a torn line, and refuse what Read
// refuses, leaving the file untouched then.
func TestOpenRepairsTail(t *testing.T) {
	torn := `{"v":1,"seq":3,"time":"2025-01-`
	unterminated := strings.TrimSuffix(ln(2), "\n")
	tests := []struct {
		name     string
		content  string
		wantSeq  int64
		wantWarn string // "" for no warning; %s is the path
		wantErr  string // "" for success; %s is the path
		wantFile string // after appending ln(wantSeq+1)
	}{
		{name: "empty", content: "", wantSeq: 0, wantFile: ln(1)},
		{name: "clean", content: ln(1) + ln(2), wantSeq: 2, wantFile: ln(1) + ln(2) + ln(3)},
		{
			name: "torn fragment", content: ln(1) + ln(2) + torn, wantSeq: 2,
			wantWarn: "%s: removed torn last line at byte 154 (31 bytes): unexpected end of JSON input",
			wantFile: ln(1) + ln(2) + ln(3),
		},
		{
			name: "only a torn fragment", content: `{"v":1,"s`, wantSeq: 0,
			wantWarn: "%s: removed torn last line at byte 0 (9 bytes): unexpected end of JSON input",
			wantFile: ln(1),
		},
		{
			name: "complete event missing newline", content: ln(1) + unterminated, wantSeq: 2,
			wantWarn: "%s: added missing newline after the last event (seq 2)",
			wantFile: ln(1) + ln(2) + ln(3),
		},
		{
			name: "garbage last line", content: ln(1) + "\x00\x00\x00\n", wantSeq: 1,
			wantWarn: "%s: removed torn last line at byte 77 (4 bytes): invalid character '\\x00' looking for beginning of value",
			wantFile: ln(1) + ln(2),
		},
		{
			name: "blank last line", content: ln(1) + "\n", wantSeq: 1,
			wantWarn: "%s: removed torn last line at byte 77 (1 bytes): unexpected end of JSON input",
			wantFile: ln(1) + ln(2),
		},
		{
			name: "torn line before torn fragment", content: ln(1) + "{\"v\n" + torn,
			wantErr: "%s: line at byte 77: corrupt event: unexpected end of JSON input",
		},
		{
			name: "newer version last", content: ln(1) + `{"v":3,"seq":2}` + "\n",
			wantErr: "%s: line at byte 77: unsupported log version 3 (this build reads version 2)",
		},
		{
			name: "invalid event last", content: ln(1) + `{"v":1,"seq":2}` + "\n",
			wantErr: `%s: line at byte 77: corrupt event: missing "type"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.jsonl")
			writeFile(t, path, tt.content)
			w, err := Open(path, WithClock(clockFrom(int(tt.wantSeq)+1)))
			if tt.wantErr != "" {
				if want := strings.ReplaceAll(tt.wantErr, "%s", path); err == nil || err.Error() != want {
					t.Fatalf("Open error = %v, want %s", err, want)
				}
				if got := readFile(t, path); got != tt.content {
					t.Errorf("Open failed but changed the file to %q", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var wantWarn []string
			if tt.wantWarn != "" {
				wantWarn = []string{strings.ReplaceAll(tt.wantWarn, "%s", path)}
			}
			if diff := cmp.Diff(wantWarn, w.Warnings()); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if w.Seq() != tt.wantSeq {
				t.Errorf("Seq = %d, want %d", w.Seq(), tt.wantSeq)
			}
			if _, err := w.Append(TypeNotice, map[string]int64{"n": tt.wantSeq + 1}); err != nil {
				t.Fatal(err)
			}
			w.Close()
			if diff := cmp.Diff(tt.wantFile, readFile(t, path)); diff != "" {
				t.Errorf("file (-want +got):\n%s", diff)
			}
			events, warnings, err := Read(path)
			if err != nil || len(warnings) != 0 {
				t.Fatalf("Read after repair = %v, %q", err, warnings)
			}
			if diff := cmp.Diff(count(int(tt.wantSeq)+1), seqs(events)); diff != "" {
				t.Errorf("seqs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCreateWithSync(t *testing.T) {
	path := filepath.Join(t.TempDir(), "deep", "sessions", "x.jsonl")
	w, err := Create(path, WithSync(true), WithClock(clockFrom(1)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Append(TypeNotice, map[string]int{"n": 1}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if got := readFile(t, path); got != ln(1) {
		t.Errorf("file = %q, want %q", got, ln(1))
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("mode = %v, want 0600 (logs hold prompts and tool output)", perm)
	}
}
