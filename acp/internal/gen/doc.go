// Command gen writes acp/schema_gen.go from the vendored ACP v1 JSON schema
// (acp/schema/schema.json): the method names, from the schema's x-method
// and x-side annotations, and the string enums it lists, under the Go
// names the rest of cordis uses. `go generate ./acp/` runs it from the acp
// directory; its test fails when the generated file is stale. It refuses a
// schema it would have to guess about (an unknown side, an enum gone or
// no longer closed).
//
// Concurrency: none; it runs once and exits.
package main
