package config

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// yamlField is one key that yaml.v3 decodes into a struct.
type yamlField struct {
	name string
	typ  reflect.Type
	// enum are the values the field's jsonschema tag allows (none: any).
	enum []string
}

// maxInlineDepth stops a struct that inlines a pointer to itself.
const maxInlineDepth = 32

// yamlFields lists the keys yaml.v3 decodes into struct type t, by its rules:
// the yaml tag's name, else the lower-cased field name; "-" skips a field;
// ",inline" flattens a struct. requireTags makes an unnamed field an error:
// Register uses it because the schema generator would name such a field
// differently from the decoder.
func yamlFields(t reflect.Type, requireTags bool) ([]yamlField, error) {
	fields, err := appendYAMLFields(nil, t, requireTags, 0)
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(fields))
	for _, f := range fields {
		if seen[f.name] {
			return nil, fmt.Errorf("%s: key %q is defined twice", t, f.name)
		}
		seen[f.name] = true
	}
	return fields, nil
}

func appendYAMLFields(fields []yamlField, t reflect.Type, requireTags bool, depth int) ([]yamlField, error) {
	if depth > maxInlineDepth {
		return nil, fmt.Errorf("%s: inlined structs nest too deeply", t)
	}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		if tag == "-" || f.PkgPath != "" && !f.Anonymous {
			continue
		}
		name, options, _ := strings.Cut(tag, ",")
		if slices.Contains(strings.Split(options, ","), "inline") {
			inner := derefType(f.Type)
			if inner.Kind() != reflect.Struct {
				return nil, fmt.Errorf("%s.%s: only structs can be inlined", t, f.Name)
			}
			var err error
			if fields, err = appendYAMLFields(fields, inner, requireTags, depth+1); err != nil {
				return nil, err
			}
			continue
		}
		if f.PkgPath != "" {
			continue // an unexported embedded struct that is not inlined cannot be set
		}
		if name == "" {
			if requireTags {
				return nil, fmt.Errorf("%s.%s: needs a yaml tag naming its key (or `yaml:\",inline\"` or `yaml:\"-\"`)", t, f.Name)
			}
			name = strings.ToLower(f.Name)
		}
		fields = append(fields, yamlField{name: name, typ: f.Type, enum: schemaEnum(f.Tag.Get("jsonschema"))})
	}
	return fields, nil
}

func derefType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// obsoleteUnmarshaler is yaml.v3's older custom-decoding interface, which it
// still honours.
type obsoleteUnmarshaler interface {
	UnmarshalYAML(unmarshal func(any) error) error
}

var (
	unmarshalerType         = reflect.TypeFor[yaml.Unmarshaler]()
	obsoleteUnmarshalerType = reflect.TypeFor[obsoleteUnmarshaler]()
)

// decodesItself reports whether values of t decode their own YAML, in which
// case their keys are theirs to check.
func decodesItself(t reflect.Type) bool {
	for _, u := range []reflect.Type{unmarshalerType, obsoleteUnmarshalerType} {
		if t.Implements(u) || reflect.PointerTo(t).Implements(u) {
			return true
		}
	}
	return false
}

// validateConfigType checks that a registered config type can be decoded,
// checked and described consistently; stack holds the structs being visited.
func validateConfigType(t reflect.Type, stack []reflect.Type) error {
	t = derefType(t)
	if decodesItself(t) {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		if slices.Contains(stack, t) {
			return fmt.Errorf("%s: recursive config types are not supported", t)
		}
		fields, err := yamlFields(t, true)
		if err != nil {
			return err
		}
		for _, f := range fields {
			if err := validateConfigType(f.typ, append(stack, t)); err != nil {
				return err
			}
		}
	case reflect.Map, reflect.Slice, reflect.Array:
		return validateConfigType(t.Elem(), stack)
	case reflect.Chan, reflect.Func, reflect.UnsafePointer, reflect.Complex64, reflect.Complex128:
		return fmt.Errorf("%s cannot be configured from YAML", t)
	}
	return nil
}

// schemaEnum reads the enum=… values of a jsonschema struct tag, which the
// schema advertises, so that the loader holds a file to the same list.
func schemaEnum(tag string) []string {
	var values []string
	for _, part := range strings.Split(tag, ",") {
		if v, ok := strings.CutPrefix(part, "enum="); ok {
			values = append(values, v)
		}
	}
	return values
}
