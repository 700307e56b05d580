package sessionlog

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// The line Append builds around the data in place is byte for byte the
// line encodeLine builds from the marshalled data, for any data and type.
func TestLineInPlaceIsEncodeLine(t *testing.T) {
	for _, typ := range []string{TypeToolResult, "x", strings.Repeat("t", 300)} {
		for _, data := range []any{nil, map[string]any{"text": "a\"b\\c\n<d>é"}, []int{1, 2}, "s", 3.5, strings.Repeat("long ", 1<<16)} {
			for _, at := range []time.Time{t0, time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)} {
				ev := Event{V: 12, Seq: 1<<62 + 7, Time: at, Type: typ}
				buf, err := marshalWithRoom(data, headerRoom(typ))
				if err != nil {
					t.Fatal(err)
				}
				got, err := lineInPlace(&ev, buf, headerRoom(typ))
				if err != nil {
					t.Fatal(err)
				}
				raw, _ := marshalData(data)
				want, _ := encodeLine(Event{V: 12, Seq: 1<<62 + 7, Time: at, Type: typ, Data: raw})
				if !bytes.Equal(got, want) || !bytes.Equal(ev.Data, raw) {
					t.Errorf("%s %.40v: in place %.120q, want %.120q", typ, data, got, want)
				}
			}
		}
	}
}
