package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestGeneratedFileIsFresh fails when acp/schema_gen.go is not what the
// generator writes for the vendored schema (a schema update without
// `go generate ./acp/`, or a hand edit).
func TestGeneratedFileIsFresh(t *testing.T) {
	schema, err := os.ReadFile("../../schema/schema.json")
	if err != nil {
		t.Fatal(err)
	}
	want, err := generate(schema)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../schema_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("acp/schema_gen.go is stale: run go generate ./acp/")
	}
}

// TestGenerateRefusesWhatItCannotName: a schema the generator would have
// to guess about is an error, not a silently different file.
func TestGenerateRefusesWhatItCannotName(t *testing.T) {
	const enumsOK = `"StopReason":{"oneOf":[{"const":"end_turn"}]},"ToolKind":{"oneOf":[{"const":"read"}]},"ToolCallStatus":{"oneOf":[{"const":"pending"}]},"CompactionStatus":{"anyOf":[{"const":"completed"},{"title":"other","type":"string"}]}`
	for name, c := range map[string]struct{ schema, wantErr string }{
		"unknown side":       {`{"$defs":{"X":{"x-method":"x/y","x-side":"editor"},` + enumsOK + `}}`, `unknown x-side "editor"`},
		"enum gone":          {`{"$defs":{"StopReason":{"oneOf":[{"const":"end_turn"}]},"ToolKind":{"oneOf":[{"const":"read"}]}}}`, "enum ToolCallStatus"},
		"open enum":          {`{"$defs":{"StopReason":{"oneOf":[{"const":"end_turn"},{"type":"string"}]},"ToolKind":{"oneOf":[{"const":"read"}]},"ToolCallStatus":{"oneOf":[{"const":"pending"}]}}}`, "without a constant"},
		"open enum gone":     {`{"$defs":{"StopReason":{"oneOf":[{"const":"end_turn"}]},"ToolKind":{"oneOf":[{"const":"read"}]},"ToolCallStatus":{"oneOf":[{"const":"pending"}]}}}`, "enum CompactionStatus"},
		"not a schema":       {`[]`, "cannot unmarshal"},
		"well-formed (none)": {`{"$defs":{` + enumsOK + `}}`, ""},
	} {
		_, err := generate([]byte(c.schema))
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%s: %v", name, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%s: error %v, want one containing %q", name, err, c.wantErr)
		}
	}
}

func TestMethodName(t *testing.T) {
	for method, want := range map[string]string{
		"session/set_config_option": "MethodSessionSetConfigOption",
		"fs/read_text_file":         "MethodFSReadTextFile",
		"$/cancel_request":          "MethodCancelRequest",
		"initialize":                "MethodInitialize",
	} {
		if got := methodName(method); got != want {
			t.Errorf("methodName(%q) = %s, want %s", method, got, want)
		}
	}
}
