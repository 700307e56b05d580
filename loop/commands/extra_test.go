package commands

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSetWith(t *testing.T) {
	local := func(name string, source Source) Command {
		return &Local{Spec: Spec{Name: name, Source: source}}
	}
	r := NewRegistry([]Command{local("help", SourceBuiltin), local("zeta", SourceBuiltin)}, testSources("", nil))
	base := r.Load(t.TempDir())
	if got := base.With(nil); got != base {
		t.Error("With(nil) made a new set")
	}
	set := base.With([]Command{local("mcp__gh__review", SourceMCP), local("help", SourceMCP)})
	var names []string
	for _, c := range set.Commands() {
		names = append(names, SpecOf(c).Name+"/"+string(SpecOf(c).Source))
	}
	if diff := cmp.Diff([]string{"help/builtin", "mcp__gh__review/mcp", "zeta/builtin"}, names); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
	if _, ok := set.Lookup("mcp__gh__review"); !ok {
		t.Error("the extra command is not found")
	}
	if len(set.Warnings) != 1 || !strings.Contains(set.Warnings[0], "/help is already taken") {
		t.Errorf("warnings = %q", set.Warnings)
	}
	if _, ok := base.Lookup("mcp__gh__review"); ok || len(base.Commands()) != 2 || len(base.Warnings) != 0 {
		t.Error("With changed the set it was called on")
	}
}
