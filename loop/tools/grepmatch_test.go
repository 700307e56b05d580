package tools

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// perLineMatches is the reference: the numbers of the lines (split at \n,
// a trailing \r dropped) the pattern matches one at a time.
func perLineMatches(re *regexp.Regexp, content string) []int {
	var out []int
	if content == "" {
		return nil
	}
	lines := strings.Split(content, "\n")
	if strings.HasSuffix(content, "\n") {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		if re.MatchString(strings.TrimSuffix(l, "\r")) {
			out = append(out, i+1)
		}
	}
	return out
}

// The buffer search (literal prefilter, lowered search, whole-buffer
// regexp) finds exactly the lines a per-line match finds.
func TestMatcherAgreesWithPerLineMatching(t *testing.T) {
	patterns := []string{
		"TODO", "(TODO|FIXME|XXX):", "todo|fixme", `func\s+\w+`, `^\s*//`, `end$`, `x$`, `\Afoo`, `bar\z`,
		`[^a]+b`, `\bkey\b`, "a.c", `k`, "s+", `(ab)+c`, `\d{3}`, "", `x*`, `\s`, `FIXME\n`, "é",
	}
	words := []string{"TODO:", "todo", "FIXME:", "xxx:", "func  main", "// c", "end", "x", "foo", "bar", "key", "abc",
		"K", "\u212a", "\u017f", "ababc", "123", " ", "\t", "\r", "é", "É", "ab", "b"}
	r := rand.New(rand.NewPCG(9, 10))
	var lowered []byte
	for i := range 3000 {
		var b strings.Builder
		for range r.IntN(30) {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteString([]string{" ", "\n", "\r\n", ""}[r.IntN(4)])
		}
		content := b.String()
		if r.IntN(2) == 0 && content != "" && !strings.HasSuffix(content, "\n") {
			content += "\n"
		}
		pattern := patterns[r.IntN(len(patterns))]
		ignoreCase := r.IntN(2) == 0
		m, err := newMatcher(pattern, ignoreCase, false)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		m.scan([]byte(content), 1, &lowered, func(n int, _ []byte) bool { got = append(got, n); return true })
		want := perLineMatches(m.line, content)
		if !equalInts(got, want) {
			t.Fatalf("case %d: %q (-i %v) over %q: lines %v, want %v", i, pattern, ignoreCase, content, got, want)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A file larger than any buffer is searched to its end (a needle past
// 20 MB was "No matches found." before), across chunk boundaries; a
// multiline search, which needs the file whole, reports it as not
// searched instead of claiming no match.
func TestGrepBigFile(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 25 MB file")
	}
	env := newEnv(t)
	p := filepath.Join(env.Cwd, "big.log")
	content := bigText(25<<20) + "the NEEDLE is here\n"
	writeFile(t, p, content)
	res := run(t, env, "Grep", map[string]any{"pattern": "needle", "-i": true, "output_mode": "content"})
	want := "big.log:" + strconv.Itoa(strings.Count(content, "\n")) + ":the NEEDLE is here"
	if res.IsError || res.Text != want {
		t.Fatalf("%+v", res)
	}
	res = run(t, env, "Grep", map[string]any{"pattern": "line 1\\d{5} of", "output_mode": "count"})
	if res.IsError || !strings.HasPrefix(res.Text, "big.log:100000\n") {
		t.Fatalf("count across chunks: %.300s", res.Text)
	}
	res = run(t, env, "Grep", map[string]any{"pattern": "NEEDLE.*here", "multiline": true})
	if !strings.Contains(res.Text, "1 file was not searched: big.log (is larger than 16 MiB") || strings.HasPrefix(res.Text, "No matches found.") && !strings.HasPrefix(res.Text, "No matches found in the files searched.") {
		t.Fatalf("multiline: %s", res.Text)
	}
}

// Grep and Glob stop when the call is cancelled.
func TestSearchesHonourCancel(t *testing.T) {
	env := newEnv(t)
	for i := range 50 {
		writeFile(t, filepath.Join(env.Cwd, "d", strconv.Itoa(i)+".txt"), "x\n")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for tool, pattern := range map[string]string{"Grep": "x", "Glob": "**/*.txt"} {
		res := runCtx(t, ctx, env, tool, map[string]any{"pattern": pattern})
		if !res.IsError || !strings.Contains(res.Text, "cancelled") {
			t.Errorf("%s: %+v", tool, res)
		}
	}
}
