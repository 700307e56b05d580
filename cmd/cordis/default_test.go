package main

import (
	_ "embed"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cordis-agent/cordis/cmd/cordis/config"
)

// defaultYAML is the documented form of builtinDefault.
//
//go:embed default.yml
var defaultYAML []byte

// TestBuiltinDefaultIsDefaultYAML: the configuration cordis runs without a
// config file is exactly what default.yml says, entry sources included, so
// that errors and /doctor name the lines of default.yml.
func TestBuiltinDefaultIsDefaultYAML(t *testing.T) {
	parsed, err := config.Parse(defaultYAML, config.EmbeddedSource, newRegistry(), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if len(parsed.Warnings) > 0 {
		t.Errorf("default.yml has warnings: %q", parsed.Warnings)
	}
	// default.yml spells out empty lists ([]) that the Go value leaves nil.
	if diff := cmp.Diff(parsed, builtinDefault(), cmpopts.EquateEmpty(), cmpopts.IgnoreFields(config.Plugin{}, "Keys")); diff != "" {
		t.Fatalf("builtinDefault() differs from default.yml (-yaml +go):\n%s", diff)
	}
}
