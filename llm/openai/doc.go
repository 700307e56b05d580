// Package openai is an llm.Provider for OpenAI-compatible Chat Completions
// streaming (POST {baseURL}/chat/completions with "stream": true): OpenAI
// itself, DeepSeek, OpenRouter and local servers such as llama.cpp, vLLM or
// Ollama.
//
//	p, err := openai.New(openai.Config{Model: "gpt-4o", BaseURL: "https://api.openai.com/v1"})
//
// Mapping onto the provider-neutral llm types:
//
//   - System strings become one "system" message (joined by blank lines).
//   - User text and images become a "user" message (a plain string when
//     there are no images, else content parts with image_url data: URLs).
//   - tool_result blocks become "tool" messages (tool_call_id, text
//     content) placed before the rest of their user turn; is_error results
//     are prefixed "Error: ", since the wire has no error flag; images in
//     tool results move to a user message after the tool messages.
//   - Assistant text and tool_use blocks become one "assistant" message
//     with tool_calls (content left out when there is no text); thinking
//     blocks are not sent back (except reasoning_content to models that
//     require it); an assistant message with nothing left is dropped.
//   - Tool call ids a backend refuses are renamed in the request, with
//     their results (llm/internal/toolids): Mistral takes nine letters or
//     digits, every other backend at most 40 printable characters. Gemini
//     (by model name or googleapis.com) gets each call's extra_content
//     (Block.Raw) back; Gemini 3 gets the documented skip signature on the
//     first call of a turn that has none.
//   - A 400 naming stream_options, or asking for max_completion_tokens
//     instead of max_tokens, is answered by sending the request once more
//     without it; stream_options stays off for the Provider's lifetime.
//   - Streamed reasoning becomes a thinking block, read from the first
//     field present in each delta: reasoning_content (DeepSeek, vLLM,
//     Qwen), reasoning (OpenRouter, newer vLLM), reasoning_details
//     (OpenRouter), so a server that sends one text in two fields is read
//     once; content becomes a text block; tool_calls fragments are
//     assembled by index into tool_use blocks. A fragment without an index
//     starts a new call when it has a name or an id, else continues the
//     latest; one with a known index but a new id and a name starts a new
//     call (servers that send every whole call as index 0). A missing id,
//     or one an earlier call of the response has, is replaced by a random
//     "call_" id. Block order is the order of first appearance;
//     Delta.Index is that position.
//   - Usage comes from usage on any chunk (the latest wins), else Groq's
//     x_groq.usage.
//   - finish_reason stop→end_turn, tool_calls→tool_use, length→max_tokens,
//     content_filter→refusal. A server that reports "stop" with tool calls
//     gets tool_use. prompt_tokens minus cached tokens is InputTokens,
//     cached tokens are CacheReadInputTokens, completion_tokens is
//     OutputTokens, so Usage.ContextTokens matches Anthropic's meaning.
//   - Tool arguments that do not parse are handled as in package anthropic:
//     repaired JSON objects go in Input with the raw text in Block.Text; an
//     unrecoverable input leaves Input nil and the raw text in Block.Text.
//     With finish_reason length, the tool call that received the last
//     delta was cut off by the output limit: it gets Input nil and its raw
//     arguments in Block.Text whatever they parse or repair to, so it is
//     never runnable.
//
// API key: read from APIKeyEnv (default OPENAI_API_KEY) on every call and
// sent as a Bearer token. A missing key is ErrMissingAPIKey, except when the
// base URL's host is a loopback address (localhost, 127.0.0.0/8, ::1): local
// servers usually need no key, so the request is sent without one. For a
// keyless server elsewhere, set the variable to any value.
//
// Retries, error kinds and idle timeouts follow the same policy as package
// anthropic (llm/internal/retry). A 429 with insufficient_quota and a
// 402 are ErrSpendLimit and not retried. An {"error":...} chunk inside a 200
// stream becomes an *llm.Error with StatusCode 200, returned with the
// partial response; its kind comes from the code, which OpenRouter sets to
// the upstream HTTP status. finish_reason "error" is ErrServer.
//
// Concurrency: a Provider's only mutable state is one atomic flag (the
// server refused stream_options); it is safe for concurrent use, and each
// Stream call delivers deltas on its caller's goroutine.
package openai
