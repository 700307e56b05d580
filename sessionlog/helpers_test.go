package sessionlog

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// clockFrom returns t0+k s, t0+(k+1) s, ... safely from any goroutine. A
// fresh log with clockFrom(1) stamps event seq N at t0+N s, matching ln(N).
func clockFrom(k int) func() time.Time {
	var mu sync.Mutex
	n := k
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t := t0.Add(time.Duration(n) * time.Second)
		n++
		return t
	}
}

// ln renders the line Append writes for a notice with data {"n":seq} at
// t0+seq seconds, so expected file contents read like the format itself.
func ln(seq int) string {
	return fmt.Sprintf(`{"v":1,"seq":%d,"time":%q,"type":"notice","data":{"n":%d}}`+"\n",
		seq, t0.Add(time.Duration(seq)*time.Second).Format(time.RFC3339Nano), seq)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func seqs(events []Event) []int64 {
	var out []int64
	for _, ev := range events {
		out = append(out, ev.Seq)
	}
	return out
}

func count(n int) []int64 {
	var out []int64
	for i := 1; i <= n; i++ {
		out = append(out, int64(i))
	}
	return out
}
