// Package redact keeps credentials out of provider logs and error messages.
//
// Concurrency: the package is stateless and safe for concurrent use.
package redact
