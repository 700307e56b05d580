// Each rule of rules.mjs fails on a body that breaks it and passes a good one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { anthropicRules, openaiRules } from './rules.mjs';

const run = (rules, body) => {
  const out = [];
  rules(body, (m) => out.push(m));
  return out;
};

const text = (t, extra = {}) => ({ type: 'text', text: t, ...extra });
const eph = { cache_control: { type: 'ephemeral' } };
const good = () => ({
  model: 'claude-sonnet-4-5',
  max_tokens: 8192,
  stream: true,
  system: [text('You are cordis.')],
  tools: [{ name: 'Read', input_schema: { type: 'object' }, ...eph }],
  messages: [
    { role: 'user', content: [text('hi', eph)] },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'hmm', signature: 'sig' },
        { type: 'tool_use', id: 't1', name: 'Read', input: {} },
        { type: 'tool_use', id: 't2', name: 'Read', input: {} },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 't2', content: [text('b')] },
        { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } }], ...eph },
        text('go on', eph),
      ],
    },
  ],
  thinking: { type: 'enabled', budget_tokens: 4096 },
});

test('anthropic: a good body passes', () => assert.deepEqual(run(anthropicRules, good()), []));

const anthropicBad = {
  'unanswered tool_use': (b) => b.messages[2].content.splice(0, 1),
  'tool_result after text': (b) => b.messages[2].content.reverse(),
  'tool_result for no tool_use': (b) => (b.messages[2].content[0].tool_use_id = 'nope'),
  'empty text': (b) => b.messages[2].content.push(text('')),
  'whitespace text in a tool_result': (b) => (b.messages[2].content[0].content = [text(' \n')]),
  'thinking without signature': (b) => (b.messages[1].content[0].signature = ''),
  'budget not below max_tokens': (b) => (b.thinking.budget_tokens = 8192),
  'budget below 1024': (b) => (b.thinking.budget_tokens = 512),
  'image media type': (b) => (b.messages[2].content[1].content[0].source.media_type = 'image/bmp'),
  'tool name': (b) => (b.tools[0].name = 'mcp.server/tool'),
  'tool name too long': (b) => (b.tools[0].name = 'x'.repeat(65)),
  'five breakpoints': (b) => { b.system[0].cache_control = eph.cache_control; b.messages[2].content[0].cache_control = eph.cache_control; },
  'two user messages in a row': (b) => b.messages.splice(1, 0, { role: 'user', content: [text('x')] }),
  'tool_use id of another provider': (b) => { b.messages[1].content[1].id = 'functions.Read:0'; b.messages[2].content[1].tool_use_id = 'functions.Read:0'; },
};
for (const [name, mutate] of Object.entries(anthropicBad)) {
  test(`anthropic: ${name} fails`, () => {
    const b = good();
    mutate(b);
    assert.notDeepEqual(run(anthropicRules, b), []);
  });
}

const goodOpenAI = () => ({
  model: 'deepseek-chat',
  stream: true,
  max_tokens: 4096,
  tools: [{ type: 'function', function: { name: 'Read', parameters: { type: 'object' } } }],
  messages: [
    { role: 'system', content: 'You are cordis.' },
    { role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBO' } }] },
    { role: 'assistant', content: 'ok', reasoning_content: '', tool_calls: [
      { id: 'c1', type: 'function', function: { name: 'Read', arguments: '{}' } },
      { id: 'c2', type: 'function', function: { name: 'Read', arguments: '{"a":1}' } },
    ] },
    { role: 'tool', tool_call_id: 'c2', content: 'b' },
    { role: 'tool', tool_call_id: 'c1', content: '' },
    { role: 'user', content: 'next' },
  ],
});

test('openai: a good body passes', () => assert.deepEqual(run(openaiRules, goodOpenAI()), []));

const openaiBad = {
  'missing tool result': (b) => b.messages.splice(4, 1),
  'tool result for no call': (b) => (b.messages[3].tool_call_id = 'nope'),
  'whitespace user text': (b) => (b.messages[5].content = '  '),
  'empty text part': (b) => (b.messages[1].content[0].text = ''),
  'image media type': (b) => (b.messages[1].content[1].image_url.url = 'data:image/tiff;base64,AAAA'),
  'tool name': (b) => (b.tools[0].function.name = 'a b'),
  'arguments not JSON': (b) => (b.messages[2].tool_calls[0].function.arguments = '{'),
  'reasoning_content to OpenAI': (b) => (b.model = 'gpt-4o'),
  'max_tokens to an o-series model': (b) => { b.model = 'o4-mini'; delete b.messages[2].reasoning_content; },
  'tool call id over 40 characters': (b) => { b.messages[2].tool_calls[0].id = 'c'.repeat(41); b.messages[4].tool_call_id = 'c'.repeat(41); },
  'empty tool call id': (b) => { b.messages[2].tool_calls[0].id = ''; b.messages[4].tool_call_id = ''; },
  'toolu_ id to Mistral': (b) => { b.model = 'mistral-large-latest'; delete b.messages[2].reasoning_content; },
  'extra_content to OpenAI': (b) => { b.model = 'gpt-4o'; delete b.messages[2].reasoning_content; b.messages[2].tool_calls[0].extra_content = { google: {} }; },
  'empty content beside tool calls': (b) => (b.messages[2].content = ''),
};

test('openai: nine-character ids pass for Mistral, extra_content for Gemini', () => {
  const m = goodOpenAI();
  m.model = 'mistral-large-latest';
  delete m.messages[2].reasoning_content;
  m.messages[2].tool_calls.forEach((c, i) => (c.id = `abcdefgh${i}`));
  m.messages[3].tool_call_id = 'abcdefgh1';
  m.messages[4].tool_call_id = 'abcdefgh0';
  assert.deepEqual(run(openaiRules, m), []);
  const g = goodOpenAI();
  g.model = 'gemini-3-pro-preview';
  delete g.messages[2].reasoning_content;
  g.messages[2].tool_calls[0].extra_content = { google: { thought_signature: 'c2ln' } };
  assert.deepEqual(run(openaiRules, g), []);
});
for (const [name, mutate] of Object.entries(openaiBad)) {
  test(`openai: ${name} fails`, () => {
    const b = goodOpenAI();
    mutate(b);
    assert.notDeepEqual(run(openaiRules, b), []);
  });
}
