package udiff

import (
	"strings"
	"testing"
)

func TestUnifiedEqualIsEmpty(t *testing.T) {
	if d := Unified("a", "b", "x\ny\n", "x\ny\n"); d != "" {
		t.Fatalf("equal texts gave %q", d)
	}
}

func TestUnifiedChangedLine(t *testing.T) {
	a := "1\n2\n3\n4\n5\n6\n7\n8\n9\n"
	b := "1\n2\n3\n4\nfive\n6\n7\n8\n9\n"
	want := "--- want\n+++ got\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"
	if got := Unified("want", "got", a, b); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestUnifiedSeparateHunks(t *testing.T) {
	var a, b []string
	for i := 0; i < 30; i++ {
		a = append(a, "line")
		b = append(b, "line")
	}
	a[2], b[2] = "old-2", "new-2"
	a[25], b[25] = "old-25", "new-25"
	got := Unified("a", "b", strings.Join(a, "\n")+"\n", strings.Join(b, "\n")+"\n")
	if n := strings.Count(got, "@@ -"); n != 2 {
		t.Fatalf("want 2 hunks, got %d:\n%s", n, got)
	}
	if !strings.Contains(got, "@@ -1,6 +1,6 @@\n") || !strings.Contains(got, "@@ -23,7 +23,7 @@\n") {
		t.Fatalf("unexpected ranges:\n%s", got)
	}
}

func TestUnifiedInsertDeleteAndNoNewline(t *testing.T) {
	got := Unified("a", "b", "x\ny", "x\ny\nz\n")
	want := "--- a\n+++ b\n@@ -1,2 +1,3 @@\n x\n-y\n\\ No newline at end of file\n+y\n+z\n"
	if got != want {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
	got = Unified("a", "b", "", "new\n")
	if want := "--- a\n+++ b\n@@ -0,0 +1 @@\n+new\n"; got != want {
		t.Fatalf("got %q want %q", got, want)
	}
}
