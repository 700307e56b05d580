// Package toml decodes TOML 1.0 documents (https://toml.io/en/v1.0.0)
// into plain Go values. It exists so that the Codex bridge can read the
// [hooks] table of a Codex config.toml, which also holds everything else
// Codex is configured with, so the whole document must be decoded
// correctly; it has no encoder and no struct mapping.
//
//	doc, err := toml.Decode(data)
//	if err != nil {
//		return fmt.Errorf("%s:%v", path, err) // config.toml:12:5: ...
//	}
//	hooks, _ := doc["hooks"].(map[string]any)
//
// Values decode to string, int64, float64, bool, time.Time (offset
// date-times), LocalDateTime, LocalDate, LocalTime, []any (arrays and
// arrays of tables) and map[string]any (tables and inline tables).
//
// Everything in TOML 1.0 is supported, including its redefinition rules: a
// key or table defined twice, a [table] header over a table that dotted
// keys defined, dotted keys into a table a header defined, anything added
// to an inline table after its closing brace, and [[array]] headers on a
// static array are errors. Two limits are the package's own: tables and
// arrays nest at most 256 deep, and fractional seconds keep nanosecond
// precision (further digits are truncated, as the specification asks). A
// leading UTF-8 byte order mark is skipped. Multi-line strings keep their
// line endings as written (CRLF stays CRLF).
//
// Errors are *Error values carrying the line and column (in characters,
// both 1-based) where decoding stopped. Decode never panics and runs in
// time linear in the size of its input; the package does no work at
// initialisation.
//
// Decode is safe for concurrent use.
package toml
