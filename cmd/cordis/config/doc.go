// Package config loads cordis.yml: the list of plugins cordis runs, each with
// its options, composed from files and checked strictly against the plugins
// compiled into the binary.
//
// # File format
//
// A config file is a YAML list of plugin entries:
//
//   - id: llm                    # unique; patches refer to it
//     name: llm/anthropic        # a registered plugin
//     config: {model: claude-sonnet-4-5, maxTokens: 8192}
//   - id: claude-hooks
//     name: bridge/claude
//     config: {path: ./hooks.json}
//     disabled: false            # true keeps the entry but does not run it
//
// or a composing mapping, such as cordis.snapshot.yml:
//
//	include: ./cordis.yml        # one path or a list, relative to this file
//	plugins: []                  # entries appended after the included ones
//	patches:
//	  - {id: llm, disabled: true}
//	  - insert:
//	      - {id: llm-replay, name: llm/replay, config: {fixture: ${CORDIS_FIXTURE}}}
//	    after: llm               # or before: <id>; neither appends
//
// The entries are the included files' entries in order (includes may nest;
// a cycle is an error naming the chain), then the file's own plugins, then
// the patches applied in order. A patch either changes the entry with its id
// or inserts entries; naming an id that is not there is an error listing the
// known ids. A changing patch may set disabled, set name (the config then
// restarts from the new plugin's defaults) and set config, which is merged
// over the entry's config: where both sides hold a mapping, keys merge one by
// one, recursively; any other value, lists included, replaces what was there.
//
// # Variables
//
// Scalar values (never keys) may hold ${NAME} and ${NAME:-default}; the
// default is used when the variable is unset or empty and may itself hold
// references. $$ is a literal $; any other $ is kept as is. A ${NAME} that is
// unset or empty expands to "" and adds a warning to Config.Warnings, because
// an empty value is sometimes intended but usually a forgotten export.
// Expansion happens on the parsed YAML, so a value cannot change the file's
// structure whatever it contains; an unquoted scalar takes the type its
// expanded text implies (maxTokens: ${MAX} can be an int), a quoted one stays
// a string. A reference that closes on its line is read as written, braces
// and all, so it also works unquoted inside {...}; its text is not subject to
// YAML escapes.
//
// # Checking
//
// Every mistake is an *Error naming file, line, entry and the valid choices,
// with a suggestion for a near miss: unknown top-level, entry or patch keys,
// missing id or name, duplicate ids, unknown plugin names, and unknown config
// fields, which are found by reflecting on the type the plugin registered.
// Disabled entries are checked too. Load follows includes on disk; Parse
// reads only the bytes it is given, such as the embedded default (named
// EmbeddedSource). Locate picks the file: --config, $CORDIS_CONFIG,
// ./cordis.yml, then the user config directory.
//
// Registry.Schema describes the format, with each plugin's options, as JSON
// Schema for editors.
//
// # Concurrency
//
// A Registry is filled at start-up and read-only afterwards; from then on it
// is safe for concurrent use, and Load and Parse may run concurrently. Each
// Register call must happen before any other use.
package config
