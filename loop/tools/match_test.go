package tools

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pattern string
		path    string
		want    bool
	}{
		{"*.go", "main.go", true},
		{"*.go", "cmd/main.go", false},
		{"**/*.go", "main.go", true},
		{"**/*.go", "a/b/c/main.go", true},
		{"**/*.go", "a/b/main.txt", false},
		{"src/**/*.ts", "src/x.ts", true},
		{"src/**/*.ts", "src/a/b/x.ts", true},
		{"src/**/*.ts", "lib/src/x.ts", false},
		{"**/test/**", "a/test/b/c.go", true},
		{"**/test/**", "a/testing/c.go", false},
		{"a/**/b/**/c", "a/b/c", true},
		{"a/**/b/**/c", "a/x/b/y/z/c", true},
		{"a/**/b/**/c", "a/x/y/c", false},
		{"?.txt", "a.txt", true},
		{"?.txt", "ab.txt", false},
		{"[abc].go", "b.go", true},
		{"[!abc].go", "b.go", false},
		{"[!abc].go", "d.go", true},
		{"[^abc].go", "d.go", true},
		{"[a-c]x", "cx", true},
		{"*.{ts,tsx}", "app.tsx", true},
		{"*.{ts,tsx}", "app.js", false},
		{"{src,test}/**/*.go", "test/a/b.go", true},
		{"{src,test}/**/*.go", "docs/a.go", false},
		{"a{b,c{d,e}}f", "acef", true},
		{"a{b,c{d,e}}f", "acf", false},
		{`\*.go`, "*.go", true},
		{`\*.go`, "a.go", false},
		{"*", ".hidden", true},
		{"a/*/c", "a/b/c", true},
		{"a/*/c", "a/b/b/c", false},
		{"./x/*.go", "x/y.go", true},
		{"{a", "{a", true},
	}
	for _, tt := range tests {
		g, err := compileGlob(tt.pattern)
		if err != nil {
			t.Errorf("compileGlob(%q): %v", tt.pattern, err)
			continue
		}
		if got := g.match(tt.path); got != tt.want {
			t.Errorf("match(%q, %q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

func TestGlobMayMatchBelow(t *testing.T) {
	tests := []struct {
		pattern, dir string
		want         bool
	}{
		{"src/**/*.ts", "src", true},
		{"src/**/*.ts", "src/a/b", true},
		{"src/**/*.ts", "lib", false},
		{"*.go", "cmd", false},
		{"a/b/*.go", "a", true},
		{"a/b/*.go", "a/b", true},
		{"a/b/*.go", "a/c", false},
		{"a/b/*.go", "a/b/c", false},
		{"{a,b}/*.go", "b", true},
		{"**", "anything/deep", true},
	}
	for _, tt := range tests {
		g, err := compileGlob(tt.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.mayMatchBelow(tt.dir); got != tt.want {
			t.Errorf("mayMatchBelow(%q, %q) = %v, want %v", tt.pattern, tt.dir, got, tt.want)
		}
	}
}

func TestExpandBraces(t *testing.T) {
	got, err := expandBraces("x{a,b{1,2},}y[{]")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"xay[{]", "xb1y[{]", "xb2y[{]", "xy[{]"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := compileGlob("[a"); err == nil {
		t.Errorf("compileGlob accepted an unclosed class")
	}
	if _, err := expandBraces("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}"); err == nil {
		t.Errorf("expandBraces accepted 2048 alternatives")
	}
}
