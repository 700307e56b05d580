// Package snapshots is the key-free end-to-end net: it runs the real
// `cordis acp` binary against recorded model responses (llm/replay),
// plays the editor from a scenario manifest, and compares the normalized
// ACP stdout, the re-persisted session logs, the request sidecars and, where
// asked, the final workspace with committed expected files. It is test and
// developer machinery: the cordis binary does not import it.
//
// # Scenarios
//
//	snapshots/<name>/manifest.yml   what the editor does (Manifest; strict)
//	snapshots/<name>/workspace/     the session's starting directory (copied)
//	snapshots/<name>/home/          copied into the temporary HOME: user-level
//	                                hook configs and the scripts they run
//	snapshots/<name>/cordis.yml     optional config overlay (hook entries)
//	snapshots/<name>/web/           optional pages served on a loopback
//	                                port for the run ({{web}}; WebDir)
//	snapshots/<name>/expected/      stdout.jsonl, session-N.jsonl,
//	                                session-N.subagent-M.jsonl,
//	                                <conversation>.system.md / .tools.json,
//	                                <conversation>.tools.N.json (the list
//	                                request N changed to, e.g. after
//	                                ExitPlanMode),
//	                                cordis-N.txt (the Nth cordis step's
//	                                output),
//	                                workspace/... (when compared)
//	fixtures/<name>/                what the model said (see package replay)
//
// # One run
//
// Run makes a temporary root with workspace/, state/, home/, tmp/ and run/,
// starts `cordis acp --config cordis.snapshot.yml --state-dir state` from
// the repository root with an environment holding nothing of the
// developer's but PATH (no key, no proxy, a temporary HOME), and plays the
// steps: initialize, newSession, loadSession and resumeSession (with the
// editor's mcpServers, where {{mcptestserver}} names the test MCP server
// of loop/mcp/mcptest, which the caller builds and passes in
// Options.MCPTestServer), prompt (with permission answers chosen by option
// kind, elicitation answers when the manifest's client offers
// elicitation, an optional cancelWhen trigger, and an optional during: steps run
// while the editor holds its answer to one of the turn's requests),
// setMode, setConfigOption, restart, waitFile (a file a hook writes in the
// workspace, for hooks that only observe) and cordis (a CLI command a user
// runs between sessions, such as `cordis trust --cwd {{cwd}} --state-dir
// {{state}}` to approve a project's hooks, allowed-tools and .mcp.json
// servers: the binary run in the workspace with the agent's environment,
// its output compared as expected/cordis-N.txt). The manifest's env values
// may use the run's placeholders, so that a workspace file names a run's
// path through ${VAR} (a .mcp.json whose command is
// ${NOTES_SERVER}, with env NOTES_SERVER: "{{mcptestserver}}"). Every wait is for a durable
// event (the answer to a request, a frame matching a trigger, a file,
// process exit), bounded but never a fixed sleep. The editor is
// acp/acptest's, connected to the process's stdio (acptest.Connect): its
// tap records every frame the
// agent writes, exactly as written and in order, and sees it before it
// is dispatched (cancelWhen and during act there); requests are served
// in arrival order, fs/* from the disk (acptest.ServeFile) and terminal/*
// with real processes (acptest.Terminals), as an editor would; a
// permission request the manifest does not answer is refused and fails
// the run. Any stdout line that is not a JSON-RPC frame fails the run.
//
// Normalize turns the raw result into the expected files; its rules are
// the only place jitter is handled (an expected file is a normalization
// fixed point). Failures lists harness problems, the replay provider's
// mismatches and recorded calls left unused.
//
// # Modes (go test ./snapshots)
//
//   - default: replay every scenario twice, in parallel (bounded); the two
//     results must be byte-identical, then equal to expected/. Read-only.
//   - -update: replay and rewrite expected/ (never fixtures/).
//   - -record: record fixtures/ against the live API (ANTHROPIC_API_KEY; the
//     test skips without it and refuses to run when CI is set), then
//     rewrite expected/. Serial.
//   - -author: for `recording: authored` scenarios, derive the recorded
//     requests from the hand-written SSE bodies through a local server that
//     speaks the Anthropic wire (llm/replay/replaytest, the record path,
//     key-free), then rewrite expected/. Serial.
//
// `go run ./snapshots/cmd/replay NAME` runs one scenario outside go test
// and prints the conversation (Watch, Printer).
//
// Concurrency: Run may be called concurrently for different scenarios;
// each run owns its directories and processes.
package snapshots
