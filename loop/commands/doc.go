// Package commands is cordis's slash-command system: the parser that
// decides whether prompt text is a command, the registry that merges
// command sources (project and user Markdown files, in the folders
// cmd/cordis names in Sources, over built-ins), and the template expander of prompt
// commands. A command arrives over ACP as prompt text starting with '/';
// it never goes through the model unless it expands into a prompt.
//
// A Command is a closed sum: *Local runs code and returns an Intent (show
// text, show an error, clear, compact, submit a prompt) that the loop
// carries out; *Prompt expands a template that the loop submits as the
// user's turn. The registry knows where commands come from, never how they
// run; the loop knows how to run them, never where they come from.
//
// Concurrency: a Registry is safe for concurrent use; Load caches one Set
// per cwd and rebuilds it when a command file changes. A Set is immutable
// once built (Enabled callbacks are evaluated on each lookup). An Expander
// is used by one goroutine at a time.
package commands
