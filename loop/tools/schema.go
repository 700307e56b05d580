package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/invopop/jsonschema"
)

// inputSpec gives the generated schema of one input struct and the JSON
// names of its fields. It reflects on first use, not at package
// initialisation: reflecting all the tools costs about a millisecond, which
// a process that only answers initialize should not pay (BENCHMARKS.md).
// Safe for concurrent use.
type inputSpec func() reflectedSpec

type reflectedSpec struct {
	schema json.RawMessage
	fields []string
	// flat: every field is a string, number or boolean, so the exact key
	// check covers every key and no nested object can hide an unknown one.
	flat bool
}

// schema is the input's JSON Schema.
func (s inputSpec) schema() json.RawMessage { return s().schema }

// specFor returns the lazily reflected spec of T: an inline object schema
// without $schema or $id and with additionalProperties false. The first
// use panics on a programming error (a schema that does not marshal);
// TestSchemaGoldens reflects every tool.
func specFor[T any]() inputSpec {
	return sync.OnceValue(reflectSpec[T])
}

func reflectSpec[T any]() reflectedSpec {
	r := jsonschema.Reflector{DoNotReference: true, Anonymous: true}
	s := r.Reflect(new(T))
	s.Version = ""
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("tools: schema for %T: %v", *new(T), err))
	}
	var fields []string
	flat := true
	if s.Properties != nil {
		for p := s.Properties.Oldest(); p != nil; p = p.Next() {
			fields = append(fields, p.Key)
			switch p.Value.Type {
			case "string", "integer", "number", "boolean":
			default:
				flat = false
			}
		}
	}
	if len(fields) == 0 {
		panic(fmt.Sprintf("tools: schema for %T has no properties", *new(T)))
	}
	return reflectedSpec{schema: b, fields: fields, flat: flat}
}

// decode fills v from the raw input strictly: the input must be one JSON
// object, every key must be a field of v (matched exactly, unlike
// encoding/json's case-insensitive matching) and every value must have the
// field's type. The error text is meant for the model.
func (s inputSpec) decode(tool string, input json.RawMessage, v any) error {
	trimmed := bytes.TrimSpace(input)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		trimmed = []byte("{}")
	}
	// The keys are checked first, without copying the values (a Write's
	// content may be many megabytes).
	var keys map[string]skipValue
	if err := json.Unmarshal(trimmed, &keys); err != nil {
		return fmt.Errorf("%s: invalid input: the input must be a JSON object (%v)", tool, err)
	}
	spec := s()
	fields := spec.fields
	var unknown []string
	for k := range keys {
		if !slices.Contains(fields, k) {
			unknown = append(unknown, fmt.Sprintf("%q", k))
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		word := "field"
		if len(unknown) > 1 {
			word = "fields"
		}
		return fmt.Errorf("%s: unknown input %s %s (accepted: %s)", tool, word,
			strings.Join(unknown, ", "), strings.Join(fields, ", "))
	}
	if spec.flat {
		// Unmarshal decodes in place; a Decoder would first copy the
		// whole input into its buffer.
		if err := json.Unmarshal(trimmed, v); err != nil {
			return fmt.Errorf("%s: invalid input: %v", tool, err)
		}
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields() // in nested objects (TodoWrite's items)
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: invalid input: %v", tool, err)
	}
	return nil
}

// skipValue accepts any JSON value and keeps nothing of it.
type skipValue struct{}

func (*skipValue) UnmarshalJSON([]byte) error { return nil }

// describeInput decodes leniently for Describe, which runs before
// validation: whatever fits is kept, the rest is ignored.
func describeInput(input json.RawMessage, v any) {
	_ = json.Unmarshal(input, v)
}
