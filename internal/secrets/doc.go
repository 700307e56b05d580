// Package secrets removes the exact values of cordis's own credentials (the
// model provider's API keys) from bytes before cordis writes them anywhere:
// the editor's stream, the session log, the hook transcripts, hook input and
// the requests it sends the model.
//
// It is the second line of defence. The first is that no subprocess gets
// the keys in its environment and none can read cordis's /proc entries
// (internal/hardening); but a subprocess can still find a key elsewhere (a
// file, the user's shell profile) and print it, and a leak through a tool
// result would reach the model, the log, the transcripts and the editor at
// once. Values are matched byte for byte: a key is made of characters that
// JSON does not escape, so scrubbing an encoded JSON line never breaks it.
//
// Scrub and Writer see one record at a time; text that reaches the editor
// in pieces (a model's streamed answer, its thinking) goes through a
// Stream, which holds back the end of a piece that could begin a value
// until the next piece decides it, so a key split over pieces is caught.
//
// Concurrency: Register is meant for start-up, before the agent serves; it
// is nevertheless safe at any time, as are Scrub, ScrubString and Writer
// from any number of goroutines (the set of values is replaced atomically).
// A Stream belongs to one sequence of pieces, used by one goroutine at a
// time.
package secrets
