// Package toolids makes the tool call ids of a conversation acceptable to
// the API it is about to be sent to. Ids come from whichever provider
// answered each step: after /model switches provider mid-session, the
// history holds Anthropic's "toolu_…", OpenAI's "call_…", Mistral's nine
// characters, Kimi's "functions.Bash:0", ids a local server left empty, or
// one a server reused across turns; each API refuses some of them (400,
// on every later turn, since the history keeps them).
//
// Rewrite renames, in the request only, every tool_use id the target
// rejects or an earlier tool_use already used, and the tool_result blocks
// that answer it alike. New ids are derived from the old id and its
// position, so the same history always encodes to the same bytes (the
// prompt cache keeps working) and the session log keeps the original ids.
//
// Concurrency: stateless; the functions are safe for concurrent use and
// never modify their arguments.
package toolids
