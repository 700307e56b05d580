package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompleteTail: a torn last line is cut off, whatever its length;
// complete lines are returned, oldest first, with the size after the cut.
func TestCompleteTail(t *testing.T) {
	long := strings.Repeat("x", tailWindow+100)
	tests := []struct {
		name, content string
		wantLines     []string
		wantContent   string
	}{
		{"empty", "", nil, ""},
		{"complete", "{\"a\":1}\n{\"b\":2}\n", []string{`{"a":1}`, `{"b":2}`}, "{\"a\":1}\n{\"b\":2}\n"},
		{"torn", "{\"a\":1}\n{\"b\":", []string{`{"a":1}`}, "{\"a\":1}\n"},
		{"only torn", "{\"b\":", nil, ""},
		{"torn line longer than the window", "{\"a\":1}\n" + long, []string{`{"a":1}`}, "{\"a\":1}\n"},
		// A line longer than the window is not returned in part.
		{"long complete line then a torn one", long + "\n{", nil, long + "\n"},
		{"lines after a long one", long + "\n{\"b\":2}\n", []string{`{"b":2}`}, long + "\n{\"b\":2}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.jsonl")
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			lines, size, err := CompleteTail(f)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range lines {
				got = append(got, string(l))
			}
			if strings.Join(got, "|") != strings.Join(tt.wantLines, "|") || len(got) != len(tt.wantLines) {
				t.Errorf("lines = %.40q, want %.40q", got, tt.wantLines)
			}
			data, _ := os.ReadFile(path)
			if string(data) != tt.wantContent || size != int64(len(tt.wantContent)) {
				t.Errorf("file after = %d bytes (size %d), want %d", len(data), size, len(tt.wantContent))
			}
		})
	}
}
