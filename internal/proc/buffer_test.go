package proc

import (
	"strings"
	"testing"
)

func TestBuffer(t *testing.T) {
	tests := []struct {
		name        string
		limit       int
		writes      []string
		want        string
		wantOmitted int64
	}{
		{"fits", 10, []string{"abc", "def"}, "abcdef", 0},
		{"exactly full", 6, []string{"abcdef"}, "abcdef", 0},
		{"one big write", 6, []string{"abcdefghij"}, "abc\n... [4 bytes omitted] ...\nhij", 4},
		{"many small writes", 6, []string{"ab", "cd", "ef", "gh", "ij", "k"}, "abc\n... [5 bytes omitted] ...\nijk", 5},
		{"tail ring wraps", 4, []string{"ab", "c", "d", "e", "f", "g"}, "ab\n... [3 bytes omitted] ...\nfg", 3},
		{"write larger than the tail when full", 4, []string{"abcdef", "0123456789"}, "ab\n... [12 bytes omitted] ...\n89", 12},
		{"cut characters are dropped whole", 6, []string{"ééééééééé"}, "é\n... [14 bytes omitted] ...\né", 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBuffer(tt.limit)
			for _, w := range tt.writes {
				if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if got := b.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			if got := b.Omitted(); got != tt.wantOmitted {
				t.Errorf("Omitted() = %d, want %d", got, tt.wantOmitted)
			}
			if got, want := b.Total(), int64(len(strings.Join(tt.writes, ""))); got != want {
				t.Errorf("Total() = %d, want %d", got, want)
			}
		})
	}
}
