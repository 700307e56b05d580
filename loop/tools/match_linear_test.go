package tools

import (
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// backtrackMatch is the plain recursive match the state-set matcher
// replaced: the reference for its answers.
func backtrackMatch(pat, name []string) bool {
	if len(pat) == 0 {
		return len(name) == 0
	}
	if pat[0] == "**" {
		for i := range len(name) + 1 {
			if backtrackMatch(pat[1:], name[i:]) {
				return true
			}
		}
		return false
	}
	if len(name) == 0 {
		return false
	}
	ok, _ := path.Match(pat[0], name[0])
	return ok && backtrackMatch(pat[1:], name[1:])
}

func TestMatchSegsAgreesWithBacktracking(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	pats := []string{"**", "*", "a", "b*", "?", "[ab]"}
	names := []string{"a", "b", "ab", "c", "ba"}
	for range 5000 {
		pat := make([]string, r.IntN(6))
		for i := range pat {
			pat[i] = pats[r.IntN(len(pats))]
		}
		name := make([]string, r.IntN(7))
		for i := range name {
			name[i] = names[r.IntN(len(names))]
		}
		if got, want := matchSegs(pat, name), backtrackMatch(pat, name); got != want {
			t.Fatalf("%q against %q: %v, want %v", pat, name, got, want)
		}
	}
}

// deepTree makes a chain of depth directories d/d/d/... with a file in
// each, and returns the root.
func deepTree(t testing.TB, root string, depth int) {
	dir := root
	for i := range depth {
		dir = filepath.Join(dir, "d")
		if i%4 == 0 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for d := dir; d != root; d = filepath.Dir(d) {
		if err := os.WriteFile(filepath.Join(d, "f.txt"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// "**/*/" ten times over a 40-deep tree: backtracking tries about 40
// choose 10 ways per path and never finishes; the state-set match
// answers at once, with the files 10 or more directories down.
func TestGlobManyDoubleStarsOnDeepTree(t *testing.T) {
	env := newEnv(t)
	deepTree(t, env.Cwd, 40)
	pattern := strings.Repeat("**/*/", 10) + "f.txt"
	res := run(t, env, "Glob", map[string]any{"pattern": pattern})
	if res.IsError {
		t.Fatal(res.Text)
	}
	if n := strings.Count(res.Text, "f.txt"); n != 31 {
		t.Errorf("%d files listed, want 31 (depths 10 to 40):\n%.500s", n, res.Text)
	}
}

// BenchmarkGlobDeepDoubleStars measures the case above.
func BenchmarkGlobDeepDoubleStars(b *testing.B) {
	dir, _ := filepath.EvalSymlinks(b.TempDir())
	deepTree(b, dir, 40)
	env := &Env{Cwd: dir, Roots: []string{dir}}
	tool, _ := ByName(Builtin(), "Glob")
	input := []byte(`{"pattern":"` + strings.Repeat("**/*/", 10) + `f.txt"}`)
	for b.Loop() {
		if res := tool.Run(b.Context(), env, input); res.IsError {
			b.Fatal(res.Text)
		}
	}
}
