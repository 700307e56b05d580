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
//     with tool_calls; thinking blocks are not sent back.
//   - Streamed reasoning_content (DeepSeek, vLLM) or reasoning (OpenRouter)
//     becomes a thinking block; content becomes a text block; tool_calls
//     fragments are assembled by index into tool_use blocks. Block order is
//     the order of first appearance; Delta.Index is that position.
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
// partial response.
//
// Concurrency: a Provider holds no mutable state and is safe for concurrent
// use; each Stream call delivers deltas on its caller's goroutine.
package openai
