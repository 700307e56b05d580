package sessionlog

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzDecodeWritten checks the fast path of decodeLine against
// json.Unmarshal: whatever decodeWritten accepts, json.Unmarshal decodes
// to the same Event.
func FuzzDecodeWritten(f *testing.F) {
	for _, s := range []string{
		strings.TrimSuffix(ln(1), "\n"),
		`{"v":1,"seq":2,"time":"2025-01-02T03:04:05Z","type":"notice","data":null}`,
		`{"v":1,"seq":3,"time":"2025-01-02T03:04:05.123456789+02:00","type":"tool/result","data":{"output":"a\tb\n<c>","x":[1,2.5e3,true]}}`,
		`{"v":1,"seq":4,"time":"2025-01-02T03:04:05Z","type":"notice","data":"text"}`,
		`{"v":2,"seq":1,"time":"2025-01-02T03:04:05Z","type":"x","data":{}}`,
		`{"v":01,"seq":1,"time":"2025-01-02T03:04:05Z","type":"x","data":{}}`,
		`{"v":1,"seq":1,"time":"2025-01-02T03:04:05Z","type":"x","data":{} }`,
		`{"v":1,"seq":1,"time":"2025-01-02T03:04:05Z","type":"x","data":{},"v":2}`,
		`{"v":1,"seq":1,"time":"2025-13-02T03:04:05Z","type":"x","data":{}}`,
		`{"v":1,"seq":1,"time":"2025-01-02T03:04:05Z","type":"\u0078","data":{}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		got, ok := decodeWritten(line)
		if !ok {
			return
		}
		var want Event
		if err := json.Unmarshal(line, &want); err != nil {
			t.Fatalf("decodeWritten accepted %q, json.Unmarshal did not: %v", line, err)
		}
		if diff := cmp.Diff(want, got); diff != "" || !got.Time.Equal(want.Time) || got.Time.Location().String() != want.Time.Location().String() {
			t.Fatalf("%q (-json.Unmarshal +decodeWritten):\n%s", line, diff)
		}
	})
}

// TestDecodeWrittenTakesWhatAppendWrites makes sure the fast path is the
// one Read takes for the lines Append writes.
func TestDecodeWrittenTakesWhatAppendWrites(t *testing.T) {
	for _, data := range []any{nil, map[string]any{"text": "a\"b\\c\n<d>é"}, []int{1, 2}, "s", 3.5} {
		raw, err := marshalData(data)
		if err != nil {
			t.Fatal(err)
		}
		line, err := encodeLine(Event{V: Version, Seq: 7, Time: t0, Type: TypeToolResult, Data: raw})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := decodeWritten(line[:len(line)-1]); !ok {
			t.Errorf("the fast path refused %q", line)
		}
	}
}
