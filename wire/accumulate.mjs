// Response conformance: feeds every authored stream in STREAMS/<provider>/
// to the official SDK's own stream accumulator and compares the final
// message, field by field, with what cordis's decoder made of the same
// bytes (DECODED/<provider>/<name>.json, written by decode_test.go).
//
//   node accumulate.mjs STREAMS DECODED
//
// Anthropic: client.messages.stream(...).finalMessage(); OpenAI:
// client.chat.completions.stream(...).finalChatCompletion(); each client's
// fetch returns the fixture's bytes in small pieces, so the SDK's own SSE
// parser reads them. Exits 1 on a difference, 2 on a usage error.
//
// The mapping. cordis's llm types are not the SDKs', so both sides are
// brought to one shape: {error, id, model, content[], stop_reason, usage}.
//   content   Anthropic: the SDK's blocks in order; text {text, citations},
//             tool_use {id, name, input (parsed)}, thinking {thinking,
//             signature}, redacted_thinking {data}, server_tool_use {id,
//             name, input} and *_tool_result {tool_use_id}, each server
//             block also equal to cordis's raw copy of it (it is sent back
//             as received): server-tool blocks are kept, not dropped, and a
//             cordis that dropped them fails here. OpenAI: a thinking block (reasoning), a text
//             block (content, then refusal) and one tool_use block per tool
//             call index, in the order they first appear in the chunks (the
//             order cordis keeps; Chat Completions has no block order).
//   stop_reason  Anthropic: as sent. OpenAI: stop -> end_turn (tool_use
//             when there are tool calls), tool_calls -> tool_use, length ->
//             max_tokens, content_filter -> refusal, and refusal whenever
//             the message has a refusal.
//   usage     Anthropic: input/output/cache_creation/cache_read tokens and
//             server_tool_use.web_search_requests. OpenAI: input =
//             prompt_tokens - cached, cache_read = cached (from
//             prompt_tokens_details.cached_tokens, else DeepSeek's
//             prompt_cache_hit_tokens), output = completion_tokens.
//   error     both fail, and in the same kind: the SDK's APIError type or
//             code maps to cordis's llm.ErrorKind (tables below); any other
//             SDK failure (stream ended early, no finish_reason) is "stream".
//             cordis's message carries the API's own message.
// Fields known to differ are listed in KNOWN; each use is printed.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';

// KNOWN lists every field where cordis knowingly differs from the SDK's
// accumulator, with the reason. compare() applies one only where its
// condition holds, and reports it.
export const KNOWN = {
  maxTokensToolInput:
    'a tool call cut off by the output limit is never runnable in cordis: input is null and the raw fragments are kept (the SDK partial-parses them into an object)',
  openaiReasoningAccumulated:
    'the openai SDK keeps only the last chunk\'s value of non-standard delta fields (reasoning_content, reasoning): Object.assign, not concatenation; the expected thinking is concatenated from the chunk events',
  openaiArrayContent:
    'the openai SDK types delta.content as a string and concatenates array parts as "[object Object]"; the expected text and thinking are read from the chunk events\' parts (Mistral)',
  openaiPlainTextErrorEvent:
    'the openai SDK fails on an "event: error" whose data is not JSON with a SyntaxError (a malformed stream); cordis reports it as a server error with the text as its message, as the Anthropic SDK reads such an event',
  openaiRefusalAsText:
    'cordis has no refusal block: refusal text becomes text and the stop reason refusal',
  openaiToolCallWithoutIndex:
    'the openai SDK throws on a tool call delta without index (Gemini, older Ollama and vLLM send whole calls without one); the SDK is fed the stream with each such call given the index cordis gives it (a new call when it has a name or an id, else the latest call)',
  openaiGeneratedToolCallID:
    'a tool call without an id gets a random one on both sides (the SDK call_<uuid>, cordis call_<24 hex>): compared as generated, and cordis\'s must be unique',
  openaiGroqUsage:
    'the openai SDK reads only usage; Groq puts it in x_groq.usage, which cordis reads when usage is absent (the expected usage is taken from x_groq)',
  openaiToolCallWithoutType:
    'the openai SDK fails a tool call that never says type "function" (Mistral leaves it out); cordis takes every Chat Completions tool call as a function call: the SDK is fed the stream with type "function" on the first fragment of such a call',
  anthropicUnknownBlockDropped:
    'cordis drops a content block type it does not know (llm.Block cannot carry it, and it could not be sent back faithfully); the SDK keeps it: the expected content leaves it out',
};

// GENERATED stands for a tool call id that neither side got from the
// stream (KNOWN.openaiGeneratedToolCallID).
export const GENERATED = '(generated id)';

// ANTHROPIC_ERROR_KINDS maps an error event's error.type to llm.ErrorKind
// (llm/anthropic kindForErrorType); an unknown type is "server".
export const ANTHROPIC_ERROR_KINDS = {
  invalid_request_error: 'invalid_request',
  request_too_large: 'invalid_request',
  authentication_error: 'authentication',
  permission_error: 'permission',
  not_found_error: 'not_found',
  rate_limit_error: 'rate_limit',
  billing_error: 'spend_limit',
  timeout_error: 'timeout',
  overloaded_error: 'overloaded',
  api_error: 'server',
};

// openaiErrorKind maps the error object of a 200 stream to llm.ErrorKind
// (llm/openai kindForError with no HTTP status).
export function openaiErrorKind(e) {
  const code = e?.code ?? '';
  const type = e?.type ?? '';
  if (code === 'insufficient_quota' || type === 'insufficient_quota') return 'spend_limit';
  const status = Number(code);
  if (Number.isInteger(status) && status >= 400 && status <= 599) {
    // OpenRouter's error chunks: the upstream HTTP status (retry.KindForStatus).
    if (status === 401) return 'authentication';
    if (status === 402) return 'spend_limit';
    if (status === 403) return 'permission';
    if (status === 404) return 'not_found';
    if (status === 408 || status === 504) return 'timeout';
    if (status === 429) return 'rate_limit';
    if (status === 529) return 'overloaded';
    if (status >= 500 || status === 409) return 'server';
    return 'invalid_request';
  }
  if (code === 'rate_limit_exceeded' || type === 'rate_limit_error' || type === 'rate_limit_exceeded') return 'rate_limit';
  if (code === 'invalid_api_key' || type === 'authentication_error') return 'authentication';
  if (type === 'invalid_request_error' || code === 'context_length_exceeded') return 'invalid_request';
  if (type === 'overloaded_error' || code === 'overloaded') return 'overloaded';
  return 'server';
}

// fixtureFetch answers every request with the fixture as a 200 event
// stream, in pieces of 13 bytes (as decode_test.go serves it).
function fixtureFetch(bytes) {
  return async (_url, _init) => {
    let offset = 0;
    const body = new ReadableStream({
      pull(controller) {
        if (offset >= bytes.length) {
          controller.close();
          return;
        }
        controller.enqueue(bytes.subarray(offset, offset + 13));
        offset += 13;
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
}

const clientOptions = (bytes) => ({
  apiKey: 'wire-test-key',
  baseURL: 'http://127.0.0.1:9/', // never dialled: fetch is the fixture
  fetch: fixtureFetch(bytes),
  maxRetries: 0,
  logLevel: 'off', // the SDKs log unparsable events; the comparison reports them
});

// anthropicFinal runs the bytes through MessageStream and returns
// {message} or {error}.
export async function anthropicFinal(bytes) {
  const client = new Anthropic(clientOptions(bytes));
  const stream = client.messages.stream({
    model: 'claude-sonnet-4-5',
    max_tokens: 1024,
    messages: [{ role: 'user', content: 'Go.' }],
  });
  try {
    return { message: await stream.finalMessage() };
  } catch (error) {
    return { error };
  }
}

// openaiFinal runs the bytes through ChatCompletionStream and returns
// {completion, chunks} or {error}.
export async function openaiFinal(bytes) {
  const indexed = withToolCallIndexes(bytes);
  const client = new OpenAI(clientOptions(indexed.bytes));
  const chunks = [];
  const stream = client.chat.completions.stream({
    model: 'gpt-4.1',
    messages: [{ role: 'user', content: 'Go.' }],
    stream_options: { include_usage: true },
  });
  stream.on('chunk', (chunk) => chunks.push(structuredClone(chunk)));
  try {
    return { completion: await stream.finalChatCompletion(), chunks, indexAdded: indexed.added, typeAdded: indexed.typed };
  } catch (error) {
    const named = /^event: ?error\r?\ndata: ?(.*)$/m.exec(new TextDecoder().decode(bytes));
    return { error, chunks, errorEventData: named?.[1] };
  }
}

// withToolCallIndexes gives every tool call delta without an index the one
// cordis gives it (KNOWN.openaiToolCallWithoutIndex): a delta with a name
// or an id starts a new call, one with neither continues the latest; and
// the first fragment of a call that never says its type gets "function"
// (KNOWN.openaiToolCallWithoutType). Only data lines that parse as JSON
// are touched.
export function withToolCallIndexes(bytes) {
  const text = new TextDecoder().decode(bytes);
  let added = false;
  let typed = false;
  let next = 0;
  let latest = -1;
  const hasType = new Set();
  const out = text.split('\n').map((line) => {
    const m = /^data: ?(.*)$/.exec(line);
    if (!m) return line;
    let chunk;
    try {
      chunk = JSON.parse(m[1]);
    } catch {
      return line;
    }
    let changed = false;
    for (const ch of chunk?.choices ?? []) {
      for (const tc of ch?.delta?.tool_calls ?? []) {
        if (Number.isInteger(tc.index)) {
          next = Math.max(next, tc.index + 1);
          latest = tc.index;
        } else {
          if (tc.id || tc.function?.name || latest < 0) latest = next++;
          tc.index = latest;
          changed = added = true;
        }
        if (tc.type) hasType.add(tc.index);
        else if (!hasType.has(tc.index)) {
          tc.type = 'function';
          hasType.add(tc.index);
          changed = typed = true;
        }
      }
    }
    if (!changed) return line;
    return `data: ${JSON.stringify(chunk)}`;
  });
  return { bytes: added || typed ? new TextEncoder().encode(out.join('\n')) : bytes, added, typed };
}

// plain is a JSON copy: own enumerable fields only.
const plain = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

function emptyToNull(v) {
  return Array.isArray(v) && v.length === 0 ? null : v ?? null;
}

// expectedFromAnthropic brings the SDK's result to the common shape.
// known(key) records a KNOWN difference applied.
export function expectedFromAnthropic(result, known) {
  if (result.error) {
    const e = result.error;
    if (e instanceof Anthropic.APIError) {
      return { error: { kind: ANTHROPIC_ERROR_KINDS[e.type] ?? 'server', message: e.apiMessage ?? null } };
    }
    return { error: { kind: 'stream', message: null } };
  }
  const m = result.message;
  const blocks = m.content.map((b) => {
    switch (b.type) {
      case 'text':
        return { type: 'text', text: b.text, citations: emptyToNull(plain(b.citations)) };
      case 'tool_use':
        return { type: 'tool_use', id: b.id, name: b.name, input: plain(b.input) };
      case 'thinking':
        return { type: 'thinking', thinking: b.thinking, signature: b.signature };
      case 'redacted_thinking':
        return { type: 'redacted_thinking', data: b.data };
      case 'server_tool_use':
        return { type: 'server_tool_use', id: b.id, name: b.name, input: plain(b.input), raw: plain(b) };
      default:
        if (b.type.endsWith('_tool_result')) {
          return { type: 'server_tool_result', tool_use_id: b.tool_use_id, raw: plain(b) };
        }
        known('anthropicUnknownBlockDropped');
        return null;
    }
  }).filter((b) => b !== null);
  const last = blocks.at(-1);
  if (m.stop_reason === 'max_tokens' && last?.type === 'tool_use') {
    known('maxTokensToolInput');
    last.input = null;
    last.raw_input = m.content.at(-1).__json_buf ?? '';
  }
  const u = m.usage ?? {};
  return {
    error: null,
    id: m.id,
    model: m.model,
    content: blocks,
    stop_reason: m.stop_reason,
    usage: {
      input_tokens: u.input_tokens ?? 0,
      output_tokens: u.output_tokens ?? 0,
      cache_creation_input_tokens: u.cache_creation_input_tokens ?? 0,
      cache_read_input_tokens: u.cache_read_input_tokens ?? 0,
      web_search_requests: u.server_tool_use?.web_search_requests ?? 0,
    },
  };
}

// partsText joins the text of a content array's parts of one kind.
function partsText(parts, kind) {
  let s = '';
  for (const p of parts) {
    if (kind === 'text' && p?.type === 'text') s += p.text ?? '';
    if (kind === 'thinking' && p?.type === 'thinking') {
      for (const t of p.thinking ?? []) s += t?.text ?? '';
    }
  }
  return s;
}

// expectedFromOpenAI brings the SDK's result to the common shape; the
// chunk events supply block order and the fields the SDK does not
// accumulate (KNOWN).
export function expectedFromOpenAI(result, known) {
  if (result.error) {
    const e = result.error;
    if (e instanceof OpenAI.APIError) {
      return { error: { kind: openaiErrorKind(e.error ?? e), message: e.error?.message ?? null } };
    }
    const syntax = e instanceof SyntaxError || e?.cause instanceof SyntaxError;
    if (syntax && result.errorEventData !== undefined) {
      known('openaiPlainTextErrorEvent');
      return { error: { kind: 'server', message: result.errorEventData.trim() } };
    }
    return { error: { kind: 'stream', message: null } };
  }
  const c = result.completion;
  const choice = c.choices[0];
  const msg = choice.message;

  const order = [];
  let reasoning = '';
  let arrayText = null;
  let arrayThinking = '';
  let hasArray = false;
  for (const chunk of result.chunks) {
    for (const ch of chunk.choices ?? []) {
      if (ch.index !== 0) continue;
      const d = ch.delta ?? {};
      let thinkingPiece = '';
      // One text in up to three fields (vLLM sends reasoning_content and
      // reasoning, OpenRouter reasoning and reasoning_details): the first
      // present is read, as cordis does.
      const details = (d.reasoning_details ?? [])
        .map((p) => (p?.type === 'reasoning.text' ? p.text ?? '' : p?.type === 'reasoning.summary' ? p.summary ?? '' : ''))
        .join('');
      const r = [d.reasoning_content, d.reasoning, details].find((x) => typeof x === 'string' && x !== '');
      if (r !== undefined) {
        reasoning += r;
        thinkingPiece += r;
      }
      let textPiece = '';
      if (Array.isArray(d.content)) {
        hasArray = true;
        thinkingPiece += partsText(d.content, 'thinking');
        arrayThinking += partsText(d.content, 'thinking');
        textPiece += partsText(d.content, 'text');
        arrayText = (arrayText ?? '') + partsText(d.content, 'text');
      } else if (typeof d.content === 'string') {
        textPiece += d.content;
        arrayText = (arrayText ?? '') + d.content;
      }
      if (typeof d.refusal === 'string') textPiece += d.refusal;
      if (thinkingPiece !== '' && !order.includes('thinking')) order.push('thinking');
      if (textPiece !== '' && !order.includes('text')) order.push('text');
      for (const tc of d.tool_calls ?? []) {
        if (!order.includes(tc.index)) order.push(tc.index);
      }
    }
  }

  let thinking = '';
  if (reasoning !== '') {
    known('openaiReasoningAccumulated');
    thinking += reasoning;
  }
  let text = (msg.content ?? '') + (msg.refusal ?? '');
  if (hasArray) {
    known('openaiArrayContent');
    thinking += arrayThinking;
    text = (arrayText ?? '') + (msg.refusal ?? '');
  }
  if (msg.refusal) known('openaiRefusalAsText');

  if (result.indexAdded) known('openaiToolCallWithoutIndex');
  if (result.typeAdded) known('openaiToolCallWithoutType');
  const streamedIDs = new Set();
  for (const chunk of result.chunks) {
    for (const ch of chunk.choices ?? []) {
      for (const tc of ch.delta?.tool_calls ?? []) if (tc.id) streamedIDs.add(tc.index);
    }
  }
  const calls = msg.tool_calls ?? [];
  const blocks = order.map((o) => {
    if (o === 'thinking') return { type: 'thinking', thinking, signature: '' };
    if (o === 'text') return { type: 'text', text, citations: null };
    const call = calls[o];
    let input;
    try {
      input = JSON.parse(call.function.arguments);
    } catch {
      input = { unparsable: call.function.arguments };
    }
    let id = call.id;
    if (!streamedIDs.has(o)) {
      known('openaiGeneratedToolCallID');
      id = GENERATED;
    }
    const block = { type: 'tool_use', id, name: call.function.name, input };
    if (call.extra_content != null) block.extra_content = plain(call.extra_content);
    return block;
  });

  const finish = choice.finish_reason;
  let stop = { stop: 'end_turn', tool_calls: 'tool_use', function_call: 'tool_use', length: 'max_tokens', content_filter: 'refusal' }[finish] ?? 'end_turn';
  if (msg.refusal) stop = 'refusal';
  if (calls.length > 0 && stop === 'end_turn') stop = 'tool_use';
  const lastOrder = order.at(-1);
  if (stop === 'max_tokens' && typeof lastOrder === 'number') {
    known('maxTokensToolInput');
    const cut = blocks.at(-1);
    cut.input = null;
    cut.raw_input = calls[lastOrder].function.arguments;
  }

  let u = c.usage ?? {};
  if (c.usage == null) {
    const groq = result.chunks.findLast((ch) => ch.x_groq?.usage)?.x_groq.usage;
    if (groq) {
      known('openaiGroqUsage');
      u = groq;
    }
  }
  const cachedRaw = u.prompt_tokens_details ? u.prompt_tokens_details.cached_tokens ?? 0 : u.prompt_cache_hit_tokens ?? 0;
  const prompt = u.prompt_tokens ?? 0;
  const cached = Math.min(Math.max(cachedRaw, 0), prompt);
  return {
    error: null,
    id: c.id,
    model: c.model,
    content: blocks,
    stop_reason: stop,
    usage: {
      input_tokens: prompt - cached,
      output_tokens: u.completion_tokens ?? 0,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: cached,
      web_search_requests: 0,
    },
  };
}

// actualFromCordis picks, from decode_test.go's output, the fields the
// mapping compares.
export function actualFromCordis(d) {
  if (d.error) return { error: { kind: d.error.kind, message: d.error.message } };
  const u = d.usage ?? {};
  return {
    error: null,
    id: d.id ?? '',
    model: d.model ?? '',
    content: (d.content ?? []).map((b) => {
      switch (b.type) {
        case 'text':
          return { type: 'text', text: b.text, citations: emptyToNull(b.citations) };
        case 'server_tool_use':
          return { type: b.type, id: b.id, name: b.name, input: b.input ?? null, raw: b.raw ?? null };
        case 'server_tool_result':
          return { type: b.type, tool_use_id: b.tool_use_id, raw: b.raw ?? null };
        default:
          return b;
      }
    }),
    stop_reason: d.stop_reason ?? '',
    usage: {
      input_tokens: u.input_tokens ?? 0,
      output_tokens: u.output_tokens ?? 0,
      cache_creation_input_tokens: u.cache_creation_input_tokens ?? 0,
      cache_read_input_tokens: u.cache_read_input_tokens ?? 0,
      web_search_requests: u.web_search_requests ?? 0,
    },
  };
}

const canon = (v) => JSON.stringify(v, (_k, x) =>
  x && typeof x === 'object' && !Array.isArray(x)
    ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, x[k]]))
    : x);

// diff lists the paths where actual differs from expected.
export function diff(expected, actual, at = '') {
  const isObj = (v) => v !== null && typeof v === 'object';
  if (isObj(expected) && isObj(actual) && Array.isArray(expected) === Array.isArray(actual)) {
    const out = [];
    if (Array.isArray(expected) && expected.length !== actual.length) {
      out.push(`${at || '.'}: SDK has ${expected.length} entries ${canon(expected.map((b) => b?.type ?? b))}, cordis ${actual.length} ${canon(actual.map((b) => b?.type ?? b))}`);
      return out;
    }
    const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
    for (const k of [...keys].sort()) {
      out.push(...diff(expected[k], actual[k], Array.isArray(expected) ? `${at}[${k}]` : `${at}.${k}`));
    }
    return out;
  }
  if (canon(expected) === canon(actual)) return [];
  return [`${at || '.'}: SDK ${canon(expected)}, cordis ${canon(actual)}`];
}

// markGenerated replaces, in actual, each tool call id where expected has
// GENERATED by GENERATED too, when cordis's id has the generated form and
// is unique in the message; it returns what failed that check.
export function markGenerated(expected, actual) {
  const out = [];
  const ids = (actual.content ?? []).filter((b) => b.type === 'tool_use').map((b) => b.id);
  (expected.content ?? []).forEach((b, i) => {
    const a = actual.content?.[i];
    if (b?.id !== GENERATED || a?.type !== 'tool_use') return;
    if (!/^call_[0-9a-f]{24}$/.test(a.id) || ids.filter((x) => x === a.id).length > 1) {
      out.push(`.content[${i}].id: cordis generated ${JSON.stringify(a.id)}, want a unique call_<24 hex>`);
      return;
    }
    a.id = GENERATED;
  });
  return out;
}

// compare returns the differences between the SDK's and cordis's result.
// Errors match when both failed in the same kind and cordis's message
// carries the API's message (when the SDK has one).
export function compare(expected, actual) {
  if (expected.error || actual.error) {
    if (!expected.error) return [`cordis failed (${canon(actual.error)}) where the SDK accumulated a message`];
    if (!actual.error) return [`the SDK failed (${expected.error.kind}) where cordis returned a message`];
    const out = [];
    if (expected.error.kind !== actual.error.kind) {
      out.push(`error kind: SDK ${expected.error.kind}, cordis ${actual.error.kind}`);
    }
    if (expected.error.message && !String(actual.error.message).includes(expected.error.message)) {
      out.push(`error message: cordis ${JSON.stringify(actual.error.message)} lacks the API's ${JSON.stringify(expected.error.message)}`);
    }
    return out;
  }
  return diff(expected, actual);
}

async function main() {
  const [streams, decoded] = process.argv.slice(2);
  if (!streams || !decoded) {
    console.error('usage: node accumulate.mjs STREAMS DECODED');
    process.exit(2);
  }
  let total = 0;
  let failures = 0;
  const knownUsed = new Map();
  for (const provider of ['anthropic', 'openai']) {
    const dir = path.join(streams, provider);
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.sse')).sort();
    if (files.length === 0) {
      console.error(`wire: no streams in ${dir}`);
      process.exit(2);
    }
    for (const f of files) {
      const name = `${provider}/${f.replace(/\.sse$/, '')}`;
      const bytes = new Uint8Array(fs.readFileSync(path.join(dir, f)));
      const cordisFile = path.join(decoded, `${name}.json`);
      total++;
      if (!fs.existsSync(cordisFile)) {
        failures++;
        console.log(`DIFF ${name}: cordis wrote no result (${cordisFile})`);
        continue;
      }
      const used = [];
      const known = (key) => {
        if (!(key in KNOWN)) throw new Error(`unlisted known difference ${key}`);
        if (!used.includes(key)) used.push(key);
      };
      const expected = provider === 'anthropic'
        ? expectedFromAnthropic(await anthropicFinal(bytes), known)
        : expectedFromOpenAI(await openaiFinal(bytes), known);
      const actual = actualFromCordis(JSON.parse(fs.readFileSync(cordisFile, 'utf8')));
      const diffs = [...markGenerated(expected, actual), ...compare(expected, actual)];
      for (const d of diffs) console.log(`DIFF ${name}: ${d}`);
      failures += diffs.length;
      for (const k of used) knownUsed.set(k, [...(knownUsed.get(k) ?? []), name]);
      let outcome = expected.error ? `both fail: ${expected.error.kind}` : `${expected.content.length} blocks, ${expected.stop_reason}`;
      if (expected.content?.some((b) => b.type.startsWith('server_tool'))) outcome += '; server-tool blocks kept and compared';
      if (diffs.length === 0) console.log(`ok   ${name} (${outcome})`);
    }
  }
  for (const [k, names] of knownUsed) {
    console.log(`KNOWN ${k} (${names.join(', ')}): ${KNOWN[k]}`);
  }
  for (const k of Object.keys(KNOWN)) {
    if (!knownUsed.has(k)) {
      failures++;
      console.log(`DIFF KNOWN.${k} is used by no stream: remove it, or add the stream it is for`);
    }
  }
  console.log(`wire: ${total} streams compared with the SDK accumulators, ${failures} differences`);
  process.exit(failures > 0 ? 1 : 0);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await main();
}
