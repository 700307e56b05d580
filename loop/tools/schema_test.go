package tools

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite testdata/schemas/*.json from the generated schemas")

// TestSchemaGoldens compares every tool's schema, indented, with
// testdata/schemas/<Tool>.json byte for byte.
func TestSchemaGoldens(t *testing.T) {
	for _, tool := range Builtin() {
		t.Run(tool.Name(), func(t *testing.T) {
			var buf bytes.Buffer
			if err := json.Indent(&buf, tool.Schema(), "", "  "); err != nil {
				t.Fatalf("schema is not JSON: %v", err)
			}
			buf.WriteByte('\n')
			golden := filepath.Join("testdata", "schemas", tool.Name()+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), buf.String()); diff != "" {
				t.Errorf("schema differs from %s (-want +got):\n%s", golden, diff)
			}
		})
	}
}

// TestSchemaShape checks the properties every tool schema must have,
// independently of the goldens.
func TestSchemaShape(t *testing.T) {
	inputs := map[string]any{
		"Read": ReadInput{}, "Write": WriteInput{}, "Edit": EditInput{}, "Bash": BashInput{},
		"Glob": GlobInput{}, "Grep": GrepInput{}, "TodoWrite": TodoWriteInput{}, "Agent": TaskInput{}, "Skill": SkillInput{},
		"NotebookEdit": NotebookEditInput{}, "TaskOutput": TaskOutputInput{}, "TaskStop": TaskStopInput{},
		"AskUserQuestion": AskUserQuestionInput{}, "WebFetch": WebFetchInput{},
		"WebSearch": WebSearchInput{},
	}
	wantRequired := map[string][]string{
		"Read":      {"file_path"},
		"Write":     {"file_path", "content"},
		"Edit":      {"file_path", "old_string", "new_string"},
		"Bash":      {"command"},
		"Glob":      {"pattern"},
		"Grep":      {"pattern"},
		"TodoWrite": {"todos"},
		"Agent":     {"description", "prompt"},
		"Skill":     {"skill"},
		// Claude Code's shapes: new_source is required even for delete,
		// and TaskStop takes task_id or the deprecated shell_id.
		"NotebookEdit":    {"notebook_path", "new_source"},
		"TaskOutput":      {"task_id"},
		"TaskStop":        nil,
		"AskUserQuestion": {"questions"},
		"WebFetch":        {"url", "prompt"},
		"WebSearch":       {"query"},
	}
	for _, tool := range Builtin() {
		t.Run(tool.Name(), func(t *testing.T) {
			var s struct {
				Schema               *string                    `json:"$schema"`
				ID                   *string                    `json:"$id"`
				Ref                  *string                    `json:"$ref"`
				Defs                 map[string]json.RawMessage `json:"$defs"`
				Type                 string                     `json:"type"`
				AdditionalProperties *bool                      `json:"additionalProperties"`
				Required             []string                   `json:"required"`
				Properties           map[string]struct {
					Description string `json:"description"`
				} `json:"properties"`
			}
			if err := json.Unmarshal(tool.Schema(), &s); err != nil {
				t.Fatal(err)
			}
			if s.Schema != nil || s.ID != nil || s.Ref != nil || s.Defs != nil {
				t.Errorf("schema has $schema/$id/$ref/$defs: %s", tool.Schema())
			}
			if s.Type != "object" || s.AdditionalProperties == nil || *s.AdditionalProperties {
				t.Errorf("type = %q, additionalProperties = %v; want object and false", s.Type, s.AdditionalProperties)
			}
			if diff := cmp.Diff(wantRequired[tool.Name()], s.Required); diff != "" {
				t.Errorf("required (-want +got):\n%s", diff)
			}
			// The schema's properties are exactly the struct's JSON fields.
			var fields []string
			for f := range reflect.TypeOf(inputs[tool.Name()]).Fields() {
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				if name == "-" {
					continue // set by the loop, not part of the input (TaskInput.Model)
				}
				fields = append(fields, name)
				if s.Properties[name].Description == "" {
					t.Errorf("property %s has no description", name)
				}
			}
			if len(fields) != len(s.Properties) {
				t.Errorf("schema has %d properties, struct has %d fields %v", len(s.Properties), len(fields), fields)
			}
		})
	}
}
