// The rules of the Anthropic Messages and OpenAI Chat Completions APIs
// that the SDK types cannot express. Each function calls fail(message) for
// every violation in one request body (parsed JSON).

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MEDIA_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
const MAX_BREAKPOINTS = 4;
const MIN_THINKING_BUDGET = 1024;

const ANTHROPIC_TOOL_ID = /^[a-zA-Z0-9_-]+$/;
// OpenAI caps tool call ids at 40 characters; Mistral takes only nine
// letters or digits (ids another provider made, after /model, get 400).
const OPENAI_TOOL_ID = /^[!-~]{1,40}$/;
const MISTRAL_TOOL_ID = /^[a-zA-Z0-9]{9}$/;
const MISTRAL_MODEL = /^(mistral|codestral|devstral|magistral|ministral|pixtral|open-mi[sx]tral)/i;
const GEMINI_MODEL = /^gemini-/i;

const blank = (s) => typeof s !== 'string' || s.trim() === '';

// Anthropic Messages API rules.
export function anthropicRules(body, fail) {
  const tools = body.tools ?? [];
  const names = new Set();
  tools.forEach((t, i) => {
    if (!TOOL_NAME.test(t.name ?? '')) fail(`tools[${i}]: name ${JSON.stringify(t.name)} does not match ${TOOL_NAME}`);
    if (names.has(t.name)) fail(`tools[${i}]: duplicate tool name ${t.name}`);
    names.add(t.name);
  });

  let breakpoints = 0;
  const countCache = (b) => { if (b && b.cache_control) breakpoints++; };
  tools.forEach(countCache);

  const system = typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : body.system ?? [];
  system.forEach((b, i) => {
    countCache(b);
    if (b.type === 'text' && blank(b.text)) fail(`system[${i}]: empty or whitespace-only text`);
  });

  const checkBlock = (b, where) => {
    countCache(b);
    switch (b.type) {
      case 'text':
        if (blank(b.text)) fail(`${where}: empty or whitespace-only text block`);
        break;
      case 'image':
        if (b.source?.type === 'base64') {
          if (!MEDIA_TYPES.has(b.source.media_type)) fail(`${where}: image media_type ${JSON.stringify(b.source.media_type)} not one of ${[...MEDIA_TYPES].join(', ')}`);
          if (blank(b.source.data)) fail(`${where}: image without data`);
        }
        break;
      case 'thinking':
        if (blank(b.signature)) fail(`${where}: thinking block without a signature`);
        if (b.cache_control) fail(`${where}: thinking block with cache_control`);
        break;
      case 'redacted_thinking':
        if (blank(b.data)) fail(`${where}: redacted_thinking block without data`);
        if (b.cache_control) fail(`${where}: redacted_thinking block with cache_control`);
        break;
      case 'tool_use':
        if (!ANTHROPIC_TOOL_ID.test(b.id ?? '')) fail(`${where}: tool_use id ${JSON.stringify(b.id)} does not match ${ANTHROPIC_TOOL_ID}`);
        if (!TOOL_NAME.test(b.name ?? '')) fail(`${where}: tool_use name ${JSON.stringify(b.name)} does not match ${TOOL_NAME}`);
        if (b.input === null || typeof b.input !== 'object' || Array.isArray(b.input)) fail(`${where}: tool_use input is not an object`);
        break;
      case 'tool_result':
        if (Array.isArray(b.content)) b.content.forEach((c, k) => checkBlock(c, `${where}.content[${k}]`));
        else if (typeof b.content === 'string' && b.content !== '' && blank(b.content)) fail(`${where}: whitespace-only tool_result content`);
        break;
    }
  };

  const msgs = body.messages ?? [];
  if (msgs.length === 0) fail('no messages');
  else if (msgs[0].role !== 'user') fail(`messages[0]: role ${msgs[0].role}, the first message must be the user's`);
  const seenToolUse = new Set();
  msgs.forEach((m, i) => {
    const where = `messages[${i}]`;
    if (i > 0 && msgs[i - 1].role === m.role) fail(`${where}: two ${m.role} messages in a row`);
    const content = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content ?? [];
    if (content.length === 0) fail(`${where}: empty content`);
    content.forEach((b, j) => checkBlock(b, `${where}.content[${j}]`));

    if (m.role === 'assistant') {
      const uses = content.filter((b) => b.type === 'tool_use');
      for (const u of uses) {
        if (seenToolUse.has(u.id)) fail(`${where}: duplicate tool_use id ${u.id}`);
        seenToolUse.add(u.id);
      }
      // Thinking comes before the text and tool calls of its turn.
      let sawOther = false;
      content.forEach((b, j) => {
        if (b.type === 'thinking' || b.type === 'redacted_thinking') {
          if (sawOther) fail(`${where}.content[${j}]: ${b.type} after a text or tool_use block`);
        } else sawOther = true;
      });
      if (uses.length === 0) return;
      const next = msgs[i + 1];
      if (!next) return; // the last message: nothing answers it yet (a prefill)
      const nextContent = Array.isArray(next.content) ? next.content : [];
      const answered = new Set(nextContent.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id));
      for (const u of uses) {
        if (!answered.has(u.id)) fail(`${where}: tool_use ${u.id} has no tool_result in messages[${i + 1}]`);
      }
    } else {
      const prev = msgs[i - 1];
      const prevUses = new Set(
        prev && Array.isArray(prev.content) ? prev.content.filter((b) => b.type === 'tool_use').map((b) => b.id) : [],
      );
      const results = new Set();
      let sawOther = false;
      content.forEach((b, j) => {
        if (b.type === 'tool_result') {
          if (sawOther) fail(`${where}.content[${j}]: tool_result after other content (tool results must come first)`);
          if (!prevUses.has(b.tool_use_id)) fail(`${where}.content[${j}]: tool_result ${b.tool_use_id} answers no tool_use of messages[${i - 1}]`);
          if (results.has(b.tool_use_id)) fail(`${where}.content[${j}]: second tool_result for ${b.tool_use_id}`);
          results.add(b.tool_use_id);
        } else sawOther = true;
      });
    }
  });

  if (breakpoints > MAX_BREAKPOINTS) fail(`${breakpoints} cache_control breakpoints (at most ${MAX_BREAKPOINTS})`);

  const th = body.thinking;
  if (th && th.type === 'enabled') {
    if (!(th.budget_tokens >= MIN_THINKING_BUDGET)) fail(`thinking.budget_tokens ${th.budget_tokens} below ${MIN_THINKING_BUDGET}`);
    if (!(th.budget_tokens < body.max_tokens)) fail(`thinking.budget_tokens ${th.budget_tokens} not below max_tokens ${body.max_tokens}`);
  }
  if (!(Number.isInteger(body.max_tokens) && body.max_tokens >= 1)) fail(`max_tokens ${body.max_tokens} is not a positive integer`);
  if (body.stream !== true) fail('stream is not true');
}

// OpenAI Chat Completions rules. reasoning_content is DeepSeek's extension
// (sent back on tool-call turns, llm.ModelCaps.ReasoningBack) and a tool
// call's extra_content Gemini's (its thought signature): both are checked
// here and removed before the type check.
export function openaiRules(body, fail) {
  const tools = body.tools ?? [];
  const names = new Set();
  tools.forEach((t, i) => {
    const n = t.function?.name;
    if (!TOOL_NAME.test(n ?? '')) fail(`tools[${i}]: name ${JSON.stringify(n)} does not match ${TOOL_NAME}`);
    if (names.has(n)) fail(`tools[${i}]: duplicate tool name ${n}`);
    names.add(n);
  });
  const msgs = body.messages ?? [];
  if (msgs.length === 0) fail('no messages');
  let pending = null; // tool_call ids of the last assistant message still unanswered
  const seen = new Set();
  msgs.forEach((m, i) => {
    const where = `messages[${i}]`;
    if (m.role !== 'tool' && pending && pending.size > 0) {
      fail(`${where}: ${m.role} message before the tool results for ${[...pending].join(', ')}`);
      pending = null;
    }
    if (typeof m.content === 'string') {
      if (m.role !== 'tool' && m.role !== 'assistant' && blank(m.content)) fail(`${where}: empty or whitespace-only ${m.role} content`);
      if (m.role === 'assistant' && blank(m.content) && !(m.tool_calls?.length)) fail(`${where}: assistant message with neither text nor tool calls`);
    } else if (Array.isArray(m.content)) {
      if (m.content.length === 0) fail(`${where}: empty content array`);
      m.content.forEach((p, j) => {
        if (p.type === 'text' && blank(p.text)) fail(`${where}.content[${j}]: empty or whitespace-only text part`);
        if (p.type === 'image_url') {
          const url = p.image_url?.url ?? '';
          const mt = /^data:([^;,]+);base64,./.exec(url);
          if (url.startsWith('data:') && (!mt || !MEDIA_TYPES.has(mt[1]))) fail(`${where}.content[${j}]: image data URL with media type ${mt ? mt[1] : '(unparsable)'}`);
        }
      });
    } else if (m.content == null && !(m.role === 'assistant' && m.tool_calls?.length)) {
      fail(`${where}: ${m.role} message without content`);
    }
    if ('reasoning_content' in m) {
      if (m.role !== 'assistant' || typeof m.reasoning_content !== 'string') fail(`${where}: reasoning_content on a ${m.role} message or not a string`);
      if (!/deepseek/i.test(body.model)) fail(`${where}: reasoning_content sent to ${body.model}`);
    }
    if (m.role === 'assistant' && m.tool_calls?.length && m.content === '') fail(`${where}: empty content beside tool calls (Gemini refuses it; leave content out)`);
    if (m.role === 'assistant' && m.tool_calls?.length) {
      pending = new Set();
      m.tool_calls.forEach((c, j) => {
        if (seen.has(c.id)) fail(`${where}.tool_calls[${j}]: duplicate id ${c.id}`);
        const idRule = MISTRAL_MODEL.test(body.model) ? MISTRAL_TOOL_ID : OPENAI_TOOL_ID;
        if (!idRule.test(c.id ?? '')) fail(`${where}.tool_calls[${j}]: id ${JSON.stringify(c.id)} does not match ${idRule} (${body.model})`);
        if ('extra_content' in c && !GEMINI_MODEL.test(body.model)) fail(`${where}.tool_calls[${j}]: extra_content sent to ${body.model}`);
        seen.add(c.id);
        pending.add(c.id);
        if (!TOOL_NAME.test(c.function?.name ?? '')) fail(`${where}.tool_calls[${j}]: name ${JSON.stringify(c.function?.name)} does not match ${TOOL_NAME}`);
        try {
          const args = JSON.parse(c.function?.arguments);
          if (args === null || typeof args !== 'object' || Array.isArray(args)) throw new Error('not an object');
        } catch (e) {
          fail(`${where}.tool_calls[${j}]: arguments are not a JSON object (${e.message})`);
        }
      });
    } else if (m.role === 'tool') {
      if (!pending || !pending.has(m.tool_call_id)) fail(`${where}: tool message ${m.tool_call_id} answers no pending tool call`);
      else pending.delete(m.tool_call_id);
    }
  });
  if (pending && pending.size > 0 && msgs.at(-1)?.role === 'tool') fail(`tool calls without a result: ${[...pending].join(', ')}`);
  if (body.max_tokens !== undefined && body.max_completion_tokens !== undefined) fail('both max_tokens and max_completion_tokens');
  if (/^(o\d|gpt-5)/.test(body.model) && body.max_tokens !== undefined) fail(`max_tokens sent to ${body.model}, which takes max_completion_tokens`);
  if (body.stream !== true) fail('stream is not true');
}
