// Package looptest runs a loop.Agent in tests, in the style of
// net/http/httptest: ModelServer is a scripted model speaking the
// Anthropic Messages SSE wire (StreamBlocks, ReplyText and the block
// builders write its answers), and Harness serves a loop.Agent in-process
// to an acp/acptest editor, with an Anthropic provider pointed at a
// ModelServer. It is test-only code: only _test.go files import it.
//
//	h := looptest.NewHarness(t, looptest.Options{Mode: loop.ModeBypass},
//		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_1", "Bash", map[string]any{"command": "ls"})),
//		looptest.ReplyText("done"))
//	h.Prompt(h.NewSession(), "list the files")
//	reqs := h.Model.Requests()
//
// Concurrency: a ModelServer is safe for concurrent requests; they take the
// scripted answers in arrival order, and Requests may be read while a
// turn runs. A Harness's fields may be read from any goroutine (the
// Editor is safe for concurrent use), but NewSession and Prompt fail the
// test with t.Fatal, so call them from the test's goroutine and call
// Editor.Prompt elsewhere. Each Harness has its own agent, model server
// and state directory, so parallel tests do not share anything.
package looptest
