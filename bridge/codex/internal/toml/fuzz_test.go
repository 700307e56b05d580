package toml

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzDecode feeds arbitrary documents to Decode. It must never panic; an
// error is an *Error placed inside the document; a decoded document holds
// only the documented types, valid UTF-8 strings and no nesting deeper
// than the limit, and decoding is deterministic.
func FuzzDecode(f *testing.F) {
	for _, c := range validCases {
		f.Add([]byte(c.doc))
	}
	for _, c := range invalidCases {
		f.Add([]byte(c.doc))
	}
	f.Add([]byte(codexConfig))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Decode(data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T %v is not an *Error", err, err)
			}
			lines := bytes.Count(data, []byte("\n")) + 1
			if e.Line < 1 || e.Line > lines || e.Column < 1 || e.Column > len(data)+1 || e.Msg == "" {
				t.Fatalf("error %q is outside the document (%d lines, %d bytes)", err, lines, len(data))
			}
			if got != nil {
				t.Fatalf("a failed decode returned %v", got)
			}
			return
		}
		if !utf8.Valid(data) {
			t.Fatalf("decoded invalid UTF-8")
		}
		checkValue(t, got, 0)
		again, err := Decode(data)
		if err != nil || fmt.Sprint(again) != fmt.Sprint(got) && !hasNaN(got) {
			t.Fatalf("decoding again gave %v, %v; first %v", again, err, got)
		}
	})
}

func checkValue(t *testing.T, v any, depth int) {
	t.Helper()
	if depth > maxNesting+1 {
		t.Fatalf("nested %d deep", depth)
	}
	switch v := v.(type) {
	case map[string]any:
		if v == nil {
			t.Fatal("nil table")
		}
		for k, e := range v {
			if !utf8.ValidString(k) {
				t.Fatalf("key %q is not UTF-8", k)
			}
			checkValue(t, e, depth+1)
		}
	case []any:
		if v == nil {
			t.Fatal("nil array")
		}
		for _, e := range v {
			checkValue(t, e, depth+1)
		}
	case string:
		if !utf8.ValidString(v) {
			t.Fatalf("string %q is not UTF-8", v)
		}
	case int64, float64, bool, time.Time:
	case LocalDate:
		if v.Month < 1 || v.Month > 12 || v.Day < 1 || v.Day > 31 {
			t.Fatalf("date %v", v)
		}
	case LocalTime:
		checkTime(t, v)
	case LocalDateTime:
		checkTime(t, v.Time)
	default:
		t.Fatalf("value %#v of type %T", v, v)
	}
}

func checkTime(t *testing.T, v LocalTime) {
	if v.Hour > 23 || v.Minute > 59 || v.Second > 60 || v.Nanosecond < 0 || v.Nanosecond >= 1e9 {
		t.Fatalf("time %v", v)
	}
}

func hasNaN(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			if hasNaN(e) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if hasNaN(e) {
				return true
			}
		}
	case float64:
		return math.IsNaN(v)
	}
	return false
}
