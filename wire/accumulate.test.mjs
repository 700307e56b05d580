// The comparison of accumulate.mjs can fail: a cordis result that differs
// from the SDK's accumulation in any compared field, or in error kind, is
// reported; the mapping of the SDK's results is checked on authored streams.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  anthropicFinal, openaiFinal, expectedFromAnthropic, expectedFromOpenAI, actualFromCordis, compare,
  markGenerated, GENERATED,
} from './accumulate.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const stream = (name) => new Uint8Array(fs.readFileSync(path.join(here, 'streams', `${name}.sse`)));
const noKnown = () => assert.fail('no known difference expected');

test('an Anthropic thinking stream maps to thinking + text, and each changed field is reported', async () => {
  const sdk = expectedFromAnthropic(await anthropicFinal(stream('anthropic/thinking-signature')), noKnown);
  assert.deepEqual(sdk.content.map((b) => b.type), ['thinking', 'text']);
  assert.match(sdk.content[0].signature, /^V2lyZ/);
  assert.deepEqual(compare(sdk, actualFromCordis(structuredClone(sdk))), []);

  const cases = [
    (c) => { c.content[0].signature += 'x'; },
    (c) => { c.content[0].thinking = c.content[0].thinking.slice(1); },
    (c) => { c.content.reverse(); },
    (c) => { c.content.pop(); },
    (c) => { c.stop_reason = 'max_tokens'; },
    (c) => { c.usage.output_tokens++; },
    (c) => { c.usage.cache_read_input_tokens = 1; },
    (c) => { c.id = 'msg_other'; },
  ];
  for (const change of cases) {
    const cordis = structuredClone(sdk);
    change(cordis);
    assert.notDeepEqual(compare(sdk, actualFromCordis(cordis)), [], `not reported: ${change}`);
  }
});

test('tool input is compared parsed, key order aside, and a changed value is reported', async () => {
  const sdk = expectedFromAnthropic(await anthropicFinal(stream('anthropic/parallel-tool-use')), noKnown);
  const cordis = structuredClone(sdk);
  const input = cordis.content[2].input;
  cordis.content[2].input = Object.fromEntries(Object.entries(input).reverse());
  assert.deepEqual(compare(sdk, actualFromCordis(cordis)), []);
  cordis.content[2].input.nested.a[1] = 2.25;
  assert.equal(compare(sdk, actualFromCordis(cordis)).length, 1);
});

test('errors must agree in kind, and cordis must carry the API message', async () => {
  const sdk = expectedFromAnthropic(await anthropicFinal(stream('anthropic/error-after-200')), noKnown);
  assert.deepEqual(sdk.error, { kind: 'overloaded', message: 'Overloaded' });
  assert.deepEqual(compare(sdk, actualFromCordis({ error: { kind: 'overloaded', message: 'Overloaded' } })), []);
  assert.equal(compare(sdk, actualFromCordis({ error: { kind: 'server', message: 'Overloaded' } })).length, 1);
  assert.equal(compare(sdk, actualFromCordis({ error: { kind: 'overloaded', message: 'stream ended' } })).length, 1);
  const ok = expectedFromAnthropic(await anthropicFinal(stream('anthropic/text')), noKnown);
  assert.equal(compare(sdk, actualFromCordis(structuredClone(ok))).length, 1, 'cordis succeeding where the SDK failed');
  assert.equal(compare(ok, actualFromCordis({ error: { kind: 'stream', message: 'x' } })).length, 1, 'cordis failing where the SDK succeeded');
});

test('OpenAI parallel tool calls map to tool_use blocks by index; a truncated stream fails as "stream"', async () => {
  const sdk = expectedFromOpenAI(await openaiFinal(stream('openai/parallel-tool-calls')), noKnown);
  assert.deepEqual(sdk.content.map((b) => [b.id, b.name]), [['call_wire_a', 'Read'], ['call_wire_b', 'Glob'], ['call_wire_c', 'Bash']]);
  assert.deepEqual(sdk.content[2].input, { command: 'echo "café"', timeout: 1000 });
  assert.equal(sdk.stop_reason, 'tool_use');
  const truncated = expectedFromOpenAI(await openaiFinal(stream('openai/truncated')), noKnown);
  assert.equal(truncated.error.kind, 'stream');
});

test('known differences are applied only where they hold, and named', async () => {
  const used = [];
  const sdk = expectedFromOpenAI(await openaiFinal(stream('openai/deepseek-reasoning')), (k) => used.push(k));
  assert.deepEqual(used, ['openaiReasoningAccumulated']);
  assert.equal(sdk.content[0].thinking, 'The user asks for a file count.\nI should say 3.');
  assert.deepEqual(sdk.usage, { input_tokens: 128, output_tokens: 58, cache_creation_input_tokens: 0, cache_read_input_tokens: 512, web_search_requests: 0 });
  assert.throws(() => expectedFromOpenAI({ completion: null, chunks: [] }, () => {}));
});

test('index-less tool calls (Gemini) are two calls with generated ids; a repeated or malformed cordis id is reported', async () => {
  const used = [];
  const sdk = expectedFromOpenAI(await openaiFinal(stream('openai/gemini-tool-calls-no-index')), (k) => used.push(k));
  assert.deepEqual(sdk.content.map((b) => [b.type, b.id]), [['tool_use', GENERATED], ['tool_use', GENERATED]]);
  assert.deepEqual(sdk.content[0].extra_content, { google: { thought_signature: 'd2lyZS1zaWduYXR1cmU=' } });
  assert.ok(used.includes('openaiToolCallWithoutIndex') && used.includes('openaiGeneratedToolCallID'));

  const cordis = (ids) => actualFromCordis({ ...structuredClone(sdk), content: sdk.content.map((b, i) => ({ ...b, id: ids[i] })) });
  const good = cordis(['call_0123456789abcdef01234567', 'call_76543210fedcba9876543210']);
  assert.deepEqual([...markGenerated(sdk, good), ...compare(sdk, good)], []);
  for (const ids of [['call_0123456789abcdef01234567', 'call_0123456789abcdef01234567'], ['', 'call_76543210fedcba9876543210']]) {
    assert.notDeepEqual(markGenerated(sdk, cordis(ids)), [], `ids ${ids} accepted`);
  }
});

test('vLLM reasoning in two fields is read once; Groq usage comes from x_groq', async () => {
  const vllm = expectedFromOpenAI(await openaiFinal(stream('openai/vllm-reasoning-both-fields')), () => {});
  assert.equal(vllm.content[0].thinking, 'List the directory.');
  const groq = expectedFromOpenAI(await openaiFinal(stream('openai/groq-x-groq-usage')), () => {});
  assert.equal(groq.usage.input_tokens, 48);
  assert.equal(groq.usage.output_tokens, 4);
});
