package config

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// Registry maps plugin names to their config types. Build it at start-up,
// then only read it: reads are safe concurrently, Register is not. The zero
// value is an empty registry ready for use.
type Registry struct {
	plugins map[string]*registration
}

type registration struct {
	newConfig   func() any
	description string
	configType  reflect.Type // the struct newConfig returns a pointer to
}

// Register adds the plugin name. newConfig must return a new non-nil pointer
// to a struct on each call, holding the plugin's defaults: an entry's config
// is decoded over it, so keys the file omits keep those values. A plugin
// without options can return &struct{}{}. Every exported field, including
// those of nested structs, needs a yaml tag naming its key (or ",inline" or
// "-"), so that the decoder, the error messages and the schema agree on names;
// `jsonschema:"required,description=..."` tags refine the schema. description
// is a one-line summary shown in the schema.
//
// Register panics on an empty or duplicate name or a newConfig that does not
// return a pointer to a struct: these are programming errors, found by the
// first test that builds the registry. The fields are checked by Check,
// which Schema runs, not here: walking every config type by reflection on
// each start of the agent would delay its first answer.
func (r *Registry) Register(name string, newConfig func() any, description string) {
	if name == "" || strings.ContainsFunc(name, func(c rune) bool { return c <= ' ' }) {
		panic(fmt.Sprintf("config: Register(%q): a plugin name must be non-empty and without spaces", name))
	}
	if _, dup := r.plugins[name]; dup {
		panic(fmt.Sprintf("config: Register(%q): registered twice", name))
	}
	if newConfig == nil {
		panic(fmt.Sprintf("config: Register(%q): newConfig is nil", name))
	}
	prototype := newConfig()
	t := reflect.TypeOf(prototype)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct || reflect.ValueOf(prototype).IsNil() {
		panic(fmt.Sprintf("config: Register(%q): newConfig must return a non-nil pointer to a struct, not %T", name, prototype))
	}
	if r.plugins == nil {
		r.plugins = make(map[string]*registration)
	}
	r.plugins[name] = &registration{newConfig: newConfig, description: description, configType: t.Elem()}
}

// Check reports the first registered config type that cannot be decoded
// as Register documents (a field without a yaml tag, a key defined twice,
// a recursive type, a field of a kind YAML cannot set, ...), naming the
// plugin. Programs test it once over their registry.
func (r *Registry) Check() error {
	for _, name := range r.Names() {
		if err := validateConfigType(r.plugins[name].configType, nil); err != nil {
			return fmt.Errorf("config: plugin %q: %v", name, err)
		}
	}
	return nil
}

// Names returns the registered plugin names, sorted.
func (r *Registry) Names() []string {
	if r == nil {
		return nil
	}
	names := make([]string, 0, len(r.plugins))
	for name := range r.plugins {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

func (r *Registry) lookup(name string) (*registration, bool) {
	if r == nil {
		return nil, false
	}
	reg, ok := r.plugins[name]
	return reg, ok
}
