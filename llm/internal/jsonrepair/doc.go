// Package jsonrepair completes JSON text that was cut off mid-value, as
// happens when a model's streamed tool input stops at max_tokens or the
// connection drops.
//
// Concurrency: the package is stateless; Repair is safe for concurrent use.
package jsonrepair
