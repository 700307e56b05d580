package config

import (
	"encoding/json"
	"reflect"
	"time"

	"github.com/invopop/jsonschema"
)

// Schema returns the JSON Schema (draft 2020-12) of a config file for the
// registered plugins: either a list of entries or a composing mapping, where
// each entry's config is checked against the schema of the plugin its name
// selects. The output is indented and deterministic, for `cordis schema` and
// golden tests.
//
// The schema checks the file as written, so a non-string option given as
// ${VAR} is flagged by schema-aware editors although Load accepts it.
func (r *Registry) Schema() ([]byte, error) {
	if err := r.Check(); err != nil {
		return nil, err
	}
	names := r.Names()
	reflector := &jsonschema.Reflector{
		FieldNameTag: "yaml",
		Anonymous:    true,
		// Each config is inlined where its plugin is selected, so that types
		// of the same name from different plugins cannot collide in $defs.
		DoNotReference: true,
		ExpandedStruct: true,
		// yaml.v3 never requires a key, so the schema requires only fields
		// that ask for it with `jsonschema:"required"`.
		RequiredFromJSONSchemaTags: true,
		Mapper:                     schemaOfSpecialType,
	}

	nameSchema := &jsonschema.Schema{Type: "string", Description: "The plugin, one of the registered names."}
	patchNameSchema := &jsonschema.Schema{Type: "string", Description: "Replaces the plugin; its config then starts from the new plugin's defaults."}
	for _, name := range names {
		nameSchema.Enum = append(nameSchema.Enum, name)
	}
	patchNameSchema.Enum = nameSchema.Enum
	var selectConfig []*jsonschema.Schema
	for _, name := range names {
		reg := r.plugins[name]
		configSchema := reflector.ReflectFromType(reg.configType)
		configSchema.Version = ""
		configSchema.Definitions = nil
		if configSchema.Description == "" {
			configSchema.Description = reg.description
		}
		selectConfig = append(selectConfig, &jsonschema.Schema{
			If: withProperties(&jsonschema.Schema{Required: []string{"name"}},
				"name", &jsonschema.Schema{Const: name}),
			Then: withProperties(&jsonschema.Schema{},
				"config", configSchema),
		})
	}

	entry := withProperties(&jsonschema.Schema{
		Type:                 "object",
		Description:          "A plugin entry.",
		Required:             []string{"id", "name"},
		AdditionalProperties: jsonschema.FalseSchema,
		AllOf:                selectConfig,
	},
		"id", &jsonschema.Schema{Type: "string", MinLength: uint64Ptr(1), Description: "Unique among the entries; patches refer to it."},
		"name", nameSchema,
		"config", &jsonschema.Schema{Type: "object", Description: "The plugin's options; omitted keys keep the plugin's defaults."},
		"disabled", &jsonschema.Schema{Type: "boolean", Description: "Keeps the entry in the list but does not run it."},
	)
	entryRef := &jsonschema.Schema{Ref: "#/$defs/entry"}
	path := &jsonschema.Schema{Type: "string", MinLength: uint64Ptr(1)}
	change := withProperties(&jsonschema.Schema{
		Type:                 "object",
		Description:          "Changes the entry with this id.",
		Required:             []string{"id"},
		MinProperties:        uint64Ptr(2),
		AdditionalProperties: jsonschema.FalseSchema,
	},
		"id", &jsonschema.Schema{Type: "string", MinLength: uint64Ptr(1), Description: "The entry to change."},
		"name", patchNameSchema,
		"config", &jsonschema.Schema{Type: "object", Description: "Merged over the entry's config: mappings key by key, recursively; any other value replaces."},
		"disabled", &jsonschema.Schema{Type: "boolean"},
	)
	insert := withProperties(&jsonschema.Schema{
		Type:                 "object",
		Description:          "Inserts entries, at the end unless before or after names an entry.",
		Required:             []string{"insert"},
		Not:                  &jsonschema.Schema{Required: []string{"before", "after"}},
		AdditionalProperties: jsonschema.FalseSchema,
	},
		"insert", &jsonschema.Schema{Type: "array", MinItems: uint64Ptr(1), Items: entryRef},
		"before", &jsonschema.Schema{Type: "string", Description: "Insert before the entry with this id."},
		"after", &jsonschema.Schema{Type: "string", Description: "Insert after the entry with this id."},
	)
	composition := withProperties(&jsonschema.Schema{
		Type:                 "object",
		Description:          "Included entries first, then plugins, then patches in order.",
		AdditionalProperties: jsonschema.FalseSchema,
	},
		"include", &jsonschema.Schema{
			Description: "Files to include, relative to this file.",
			OneOf:       []*jsonschema.Schema{path, {Type: "array", MinItems: uint64Ptr(1), Items: path}},
		},
		"plugins", &jsonschema.Schema{Type: "array", Items: entryRef},
		"patches", &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Ref: "#/$defs/patch"}},
	)
	root := &jsonschema.Schema{
		Version:     jsonschema.Version,
		Title:       "cordis configuration",
		Description: "A list of plugin entries, or a mapping that includes files, adds plugins and patches entries. Scalar values may use ${VAR} and ${VAR:-default}; $$ is a literal $.",
		OneOf: []*jsonschema.Schema{
			{Type: "array", Items: entryRef},
			{Ref: "#/$defs/composition"},
		},
		Definitions: jsonschema.Definitions{
			"entry":       entry,
			"patch":       {OneOf: []*jsonschema.Schema{change, insert}},
			"composition": composition,
		},
	}
	out, err := json.MarshalIndent(root, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// withProperties sets s's properties, in the order given as name, schema
// pairs, and returns s.
func withProperties(s *jsonschema.Schema, pairs ...any) *jsonschema.Schema {
	s.Properties = jsonschema.NewProperties()
	for i := 0; i+1 < len(pairs); i += 2 {
		s.Properties.Set(pairs[i].(string), pairs[i+1].(*jsonschema.Schema))
	}
	return s
}

func uint64Ptr(n uint64) *uint64 { return &n }

// schemaOfSpecialType describes types that yaml.v3 decodes from text the
// reflector cannot know about. (A field's own tags then add its description.)
func schemaOfSpecialType(t reflect.Type) *jsonschema.Schema {
	if t == reflect.TypeFor[time.Duration]() {
		return &jsonschema.Schema{
			Type:     "string",
			Pattern:  `^[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|ms|s|m|h)(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|ms|s|m|h))*$|^0$`,
			Examples: []any{"300ms", "30s", "1h30m"},
		}
	}
	return nil
}
