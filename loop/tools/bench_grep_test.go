package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkGrepTree runs Grep over the tree named by CORDIS_GREP_TREE
// (bench/grep.sh points it at a copy of $(go env GOROOT)/src and times
// ripgrep on the same searches): a literal, -i, an alternation and a
// pattern that matches nothing, in files_with_matches and content modes.
//
//	CORDIS_GREP_TREE=DIR go test ./loop/tools -run '^$' -bench GrepTree
func BenchmarkGrepTree(b *testing.B) {
	tree := os.Getenv("CORDIS_GREP_TREE")
	if tree == "" {
		b.Skip("CORDIS_GREP_TREE is not set")
	}
	tree, _ = filepath.Abs(tree)
	env := &Env{Cwd: tree, Roots: []string{tree}}
	tool, _ := ByName(Builtin(), "Grep")
	searches := []struct {
		name  string
		input map[string]any
	}{
		{"literal", map[string]any{"pattern": "func main"}},
		{"ignorecase", map[string]any{"pattern": "content-type", "-i": true}},
		{"alternation", map[string]any{"pattern": "(TODO|FIXME|XXX):"}},
		{"nomatch", map[string]any{"pattern": "zqxjkvbwpy"}},
		{"content-literal", map[string]any{"pattern": "func main", "output_mode": "content"}},
		{"content-alternation", map[string]any{"pattern": "(TODO|FIXME|XXX):", "output_mode": "content"}},
	}
	for _, s := range searches {
		input, _ := json.Marshal(s.input)
		b.Run(s.name, func(b *testing.B) {
			for b.Loop() {
				if res := tool.Run(b.Context(), env, input); res.IsError {
					b.Fatal(res.Text)
				}
			}
		})
	}
}
