package setup

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestProjectFirst: project sources before user ones, each list's order
// kept, the earlier list first within a scope.
func TestProjectFirst(t *testing.T) {
	got := ProjectFirst(CordisCommands("/h"), []Source{Project(".x/commands"), User("/h/.x/commands")})
	want := []Source{Project(".cordis/commands"), Project(".x/commands"), User("/h/.cordis/commands"), User("/h/.x/commands")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if p := Project(".x/a").In("/p"); p != "/p/.x/a" {
		t.Errorf("project In = %q", p)
	}
	if p := User("/h/a").In("/p"); p != "/h/a" {
		t.Errorf("user In = %q", p)
	}
}
