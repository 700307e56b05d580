package sessionlog

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRead(t *testing.T) {
	const name = "sessions/abc.jsonl"
	tests := []struct {
		name     string
		content  string
		wantSeqs []int64
		wantWarn []string
		wantErr  string
	}{
		{name: "empty", content: ""},
		{name: "clean", content: ln(1) + ln(2) + ln(3), wantSeqs: count(3)},
		{
			name: "torn last line", content: ln(1) + ln(2) + `{"v":1,"seq":3,"ti`, wantSeqs: count(2),
			wantWarn: []string{name + ":3: skipped torn last line (18 bytes): unexpected end of JSON input"},
		},
		{
			name: "complete last event without newline", content: ln(1) + strings.TrimSuffix(ln(2), "\n"),
			wantSeqs: count(2),
		},
		{
			name: "invalid JSON at the very end", content: ln(1) + "\x00\x00\n", wantSeqs: count(1),
			wantWarn: []string{name + `:2: skipped torn last line (2 bytes): invalid character '\x00' looking for beginning of value`},
		},
		{
			name: "blank last line", content: ln(1) + "\n", wantSeqs: count(1),
			wantWarn: []string{name + ":2: skipped torn last line (0 bytes): unexpected end of JSON input"},
		},
		{
			name: "only a torn line", content: `{"v":1`,
			wantWarn: []string{name + ":1: skipped torn last line (6 bytes): unexpected end of JSON input"},
		},
		{name: "CRLF tolerated", content: strings.ReplaceAll(ln(1)+ln(2), "\n", "\r\n"), wantSeqs: count(2)},
		{
			name: "corrupt middle line", content: ln(1) + `{"v":1,"seq":2,"ti` + "\n" + ln(2),
			wantErr: name + ":2: corrupt event: unexpected end of JSON input",
		},
		{
			name: "corrupt middle line before torn tail", content: ln(1) + "garbage\n" + `{"v"`,
			wantErr: name + ":2: corrupt event: invalid character 'g' looking for beginning of value",
		},
		{
			name: "blank middle line", content: ln(1) + "\n" + ln(2),
			wantErr: name + ":2: corrupt event: unexpected end of JSON input",
		},
		{
			name: "newer version", content: ln(1) + `{"v":3,"seq":"two","when":1}` + "\n",
			wantErr: name + ":2: unsupported log version 3 (this build reads version 2)",
		},
		{
			name: "newer version as torn-looking last line is still JSON", content: `{"v":3}`,
			wantErr: name + ":1: unsupported log version 3 (this build reads version 2)",
		},
		{
			name: "missing version", content: `{"seq":1,"time":"2025-01-02T03:04:05Z","type":"notice"}` + "\n",
			wantErr: name + `:1: corrupt event: missing or invalid "v"`,
		},
		{
			name: "missing type", content: `{"v":1,"seq":1,"time":"2025-01-02T03:04:05Z"}` + "\n",
			wantErr: name + `:1: corrupt event: missing "type"`,
		},
		{
			name: "missing seq", content: `{"v":1,"time":"2025-01-02T03:04:05Z","type":"notice"}` + "\n",
			wantErr: name + `:1: corrupt event: missing or invalid "seq"`,
		},
		{
			name: "seq gap", content: ln(1) + ln(3),
			wantErr: name + ":2: corrupt event: seq 3, want 2",
		},
		{
			name: "seq repeated", content: ln(1) + ln(2) + ln(2),
			wantErr: name + ":3: corrupt event: seq 2, want 3",
		},
		{
			name: "seq not starting at 1", content: ln(2),
			wantErr: name + ":1: corrupt event: seq 2, want 1",
		},
		{
			name: "bad time", content: `{"v":1,"seq":1,"time":"yesterday","type":"notice"}` + "\n",
			wantErr: name + `:1: corrupt event: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`,
		},
		{
			name: "not an object", content: "[1,2]\n",
			wantErr: name + ":1: corrupt event: json: cannot unmarshal array into Go value of type sessionlog.Event",
		},
		{
			name: "null line", content: "null\n",
			wantErr: name + `:1: corrupt event: missing or invalid "v"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			events, warnings, err := read(strings.NewReader(tt.content), name)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v\nwant %s", err, tt.wantErr)
				}
				var fe *FormatError
				if !errors.As(err, &fe) {
					t.Errorf("err is %T, want *FormatError", err)
				}
				if events != nil {
					t.Errorf("events = %d on error, want nil", len(events))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantSeqs, seqs(events)); diff != "" {
				t.Errorf("seqs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantWarn, warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadNamesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sessions", "abc.jsonl")
	writeFile(t, path, ln(1)+"{\n"+ln(2))
	_, _, err := Read(path)
	if want := path + ":2: corrupt event: unexpected end of JSON input"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
	if _, _, err := Read(filepath.Join(t.TempDir(), "missing.jsonl")); err == nil {
		t.Error("Read of a missing file: no error")
	}
}

// repeatReader yields n bytes of block, repeated, without holding them all.
type repeatReader struct {
	block []byte
	n     int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), r.n)], r.block)
	r.n -= k
	return k, nil
}

func TestReadLineLimit(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("reads 64 MiB")
	}
	r := io.MultiReader(strings.NewReader(ln(1)), &repeatReader{bytes.Repeat([]byte{'x'}, 64<<10), MaxLineSize + 1})
	_, _, err := read(r, "big.jsonl")
	if want := "big.jsonl:2: line longer than 67108864 bytes"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}

// TestReadLargeLine checks lines far beyond the reader's buffer size.
func TestReadLargeLine(t *testing.T) {
	big := `{"v":1,"seq":2,"time":"2025-01-02T03:04:05Z","type":"tool/result","data":"` + strings.Repeat("y", 3<<20) + `"}` + "\n"
	events, warnings, err := read(strings.NewReader(ln(1)+big+ln(3)), "x.jsonl")
	if err != nil || len(warnings) != 0 {
		t.Fatalf("read = %v, %q", err, warnings)
	}
	if diff := cmp.Diff(count(3), seqs(events)); diff != "" {
		t.Fatalf("seqs (-want +got):\n%s", diff)
	}
	if got := len(events[1].Data); got != 3<<20+2 {
		t.Errorf("data length = %d, want %d", got, 3<<20+2)
	}
}

func TestTailLines(t *testing.T) {
	long := strings.Repeat("z", 40<<10) // longer than the backward read chunk
	tests := []struct {
		content string
		want    []span
	}{
		{"", nil},
		{"\n", []span{{0, 0, true}}},
		{"a\n", []span{{0, 1, true}}},
		{"a\nb", []span{{2, 3, false}, {0, 1, true}}},
		{"a\n\n", []span{{2, 2, true}, {0, 1, true}}},
		{"a\nbc\nd\n", []span{{5, 6, true}, {2, 4, true}}},
		{"a\n" + long + "\n" + long, []span{{int64(3 + len(long)), int64(3 + 2*len(long)), false}, {2, int64(2 + len(long)), true}}},
	}
	for _, tt := range tests {
		got, err := tailLines(strings.NewReader(tt.content), int64(len(tt.content)), 2)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(span{})); diff != "" {
			t.Errorf("tailLines(%.20q) (-want +got):\n%s", tt.content, diff)
		}
	}
}
