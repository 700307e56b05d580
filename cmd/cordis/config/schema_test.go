package config_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cordis-agent/cordis/cmd/cordis/config"
)

var update = flag.Bool("update", false, "rewrite testdata/schema.golden.json")

type fakeModelConfig struct {
	Model     string        `yaml:"model" jsonschema:"required,description=Model id."`
	MaxTokens int           `yaml:"maxTokens,omitempty" jsonschema:"minimum=1"`
	Timeout   time.Duration `yaml:"timeout"`
	Retry     struct {
		Attempts int `yaml:"attempts"`
	} `yaml:"retry"`
	Stop []string `yaml:"stop"`
}

type fakeHooksConfig struct {
	Path   string            `yaml:"path"`
	Env    map[string]string `yaml:"env"`
	Ignore string            `yaml:"-"`
}

func schemaRegistry() *config.Registry {
	var reg config.Registry
	reg.Register("llm/fake", func() any { return &fakeModelConfig{} }, "A fake model provider.")
	reg.Register("bridge/fake", func() any { return &fakeHooksConfig{} }, "A fake hook bridge.")
	return &reg
}

func TestSchemaGolden(t *testing.T) {
	got, err := schemaRegistry().Schema()
	if err != nil {
		t.Fatal(err)
	}
	again, err := schemaRegistry().Schema()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, again) {
		t.Fatal("Schema output differs between two calls")
	}
	var doc map[string]any
	if err := json.Unmarshal(got, &doc); err != nil {
		t.Fatalf("Schema is not JSON: %v", err)
	}
	if _, ok := doc["$id"]; ok {
		t.Error("Schema root has an $id")
	}

	golden := filepath.Join("testdata", "schema.golden.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestSchemaGolden -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("Schema differs from %s (-want +got; -update rewrites it):\n%s", golden, diff)
	}
}

func TestSchemaOfEmptyRegistry(t *testing.T) {
	var reg config.Registry
	out, err := reg.Schema()
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(out) {
		t.Errorf("Schema of an empty registry is not JSON:\n%s", out)
	}
}
