// Drives the real cordis binary with the official ACP TypeScript SDK over
// stdio, against a scripted fake of the Anthropic Messages API, and checks
// every frame cordis wrote against the official ACP v1 JSON Schema.
//
//   CORDIS_BIN=/path/to/cordis node --test interop.test.mjs
//
// (interop/run.sh builds the binary and runs this.)

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm, writeFile, mkdir } from "node:fs/promises";
import http from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Readable, Writable } from "node:stream";
import { after, before, test } from "node:test";
import * as acp from "@agentclientprotocol/sdk";
import { formatViolation, validateTranscript } from "./validate.mjs";

const BIN = process.env.CORDIS_BIN;
const STEP_MS = 20_000; // bound on any single protocol step

// ---------------------------------------------------------------------------
// A fake Anthropic Messages API: each POST /v1/messages gets the next scripted
// reply, streamed in the real SSE wire format. A reply marked `stall` sends
// its events and then holds the response open until the agent drops it.

function sseEvents(events) {
  return events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join("");
}

function messageStart(id) {
  return ["message_start", {
    type: "message_start",
    message: { id, type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 25, output_tokens: 1 } },
  }];
}

function textReply(id, text) {
  const half = Math.ceil(text.length / 2);
  return {
    events: [
      messageStart(id),
      ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: text.slice(0, half) } }],
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: text.slice(half) } }],
      ["content_block_stop", { type: "content_block_stop", index: 0 }],
      ["message_delta", { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 7 } }],
      ["message_stop", { type: "message_stop" }],
    ],
  };
}

function toolUseReply(id, preamble, toolUseId, name, input) {
  const json = JSON.stringify(input);
  const cut = Math.floor(json.length / 3);
  return {
    events: [
      messageStart(id),
      ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: preamble } }],
      ["content_block_stop", { type: "content_block_stop", index: 0 }],
      ["content_block_start", { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: toolUseId, name, input: {} } }],
      ["content_block_delta", { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: json.slice(0, cut) } }],
      ["content_block_delta", { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: json.slice(cut) } }],
      ["content_block_stop", { type: "content_block_stop", index: 1 }],
      ["message_delta", { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 30 } }],
      ["message_stop", { type: "message_stop" }],
    ],
  };
}

function stallingReply(id, text) {
  return {
    stall: true,
    events: [
      messageStart(id),
      ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }],
    ],
  };
}

class FakeModel {
  script = [];
  requests = []; // parsed request bodies, in arrival order
  unexpected = []; // requests that had no scripted reply
  open = new Set(); // stalled responses still held open

  async start() {
    this.server = http.createServer((req, res) => {
      const chunks = [];
      req.on("data", (c) => chunks.push(c));
      req.on("end", () => this.#answer(req, res, Buffer.concat(chunks).toString("utf8")));
    });
    this.server.listen(0, "127.0.0.1");
    await once(this.server, "listening");
    this.url = `http://127.0.0.1:${this.server.address().port}`;
  }

  #answer(req, res, body) {
    let parsed;
    try {
      parsed = JSON.parse(body);
    } catch {
      parsed = body;
    }
    const step = req.method === "POST" && req.url.split("?")[0] === "/v1/messages" ? this.script.shift() : undefined;
    if (!step) {
      this.unexpected.push({ method: req.method, url: req.url, body: parsed });
      // 400 is not retried: the turn ends at once and the test reports it.
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: "interop fake model: no scripted reply for this request" } }));
      return;
    }
    this.requests.push(parsed);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.write(sseEvents(step.events));
    if (step.stall) {
      this.open.add(res);
      res.on("close", () => this.open.delete(res));
      return;
    }
    res.end();
  }

  async stop() {
    for (const res of this.open) res.destroy();
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, "close");
  }
}

// ---------------------------------------------------------------------------
// The agent process and its transcript: every line on both pipes, recorded
// in wire order as {from, message} (or {from, raw} for a non-JSON line).

function lineRecorder(transcript, from) {
  const decoder = new TextDecoder();
  let pending = "";
  const take = (line) => {
    if (line.endsWith("\r")) line = line.slice(0, -1);
    try {
      transcript.push({ from, message: JSON.parse(line) });
    } catch {
      transcript.push({ from, raw: line });
    }
  };
  return {
    push(chunk) {
      pending += decoder.decode(chunk, { stream: true });
      for (let i; (i = pending.indexOf("\n")) >= 0; ) {
        take(pending.slice(0, i));
        pending = pending.slice(i + 1);
      }
    },
    flush() {
      pending += decoder.decode();
      if (pending !== "") take(pending); // an unterminated last line
      pending = "";
    },
  };
}

class AgentProcess {
  transcript = [];
  updates = []; // session/update params the SDK delivered, in order
  permissionRequests = [];
  fsCalls = [];

  constructor(name, { model, stateDir, home, cwd }) {
    this.name = name;
    this.child = spawn(BIN, ["acp", "--state-dir", stateDir, "--log-level", "warn"], {
      stdio: ["pipe", "pipe", "inherit"],
      cwd,
      env: {
        PATH: process.env.PATH,
        HOME: home,
        XDG_CONFIG_HOME: join(home, ".config"),
        ANTHROPIC_BASE_URL: model.url,
        ANTHROPIC_API_KEY: "test-key",
      },
    });
    this.exited = once(this.child, "exit");
    const fromAgent = lineRecorder(this.transcript, "agent");
    const fromClient = lineRecorder(this.transcript, "client");
    this.flush = () => {
      fromAgent.flush();
      fromClient.flush();
    };
    const input = Readable.toWeb(this.child.stdout).pipeThrough(
      new TransformStream({
        transform(chunk, controller) {
          fromAgent.push(chunk);
          controller.enqueue(chunk);
        },
      }),
    );
    const stdin = Writable.toWeb(this.child.stdin).getWriter();
    const output = new WritableStream({
      async write(chunk) {
        fromClient.push(chunk);
        await stdin.write(chunk);
      },
      close: () => stdin.close(),
      abort: (reason) => stdin.abort(reason),
    });
    this.stream = acp.ndJsonStream(output, input);
  }

  // The SDK client app: collects updates, answers permission with the
  // option `permissionKind`, and serves fs/* from the local disk.
  app({ permissionKind = "allow_once" } = {}) {
    return acp
      .client({ name: "cordis-interop" })
      .onNotification(acp.methods.client.session.update, ({ params }) => {
        this.updates.push(params);
      })
      .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
        this.permissionRequests.push(params);
        const option = params.options.find((o) => o.kind === permissionKind);
        assert.ok(option, `no ${permissionKind} option in ${JSON.stringify(params.options)}`);
        return { outcome: { outcome: "selected", optionId: option.optionId } };
      })
      .onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
        this.fsCalls.push({ method: "fs/read_text_file", params });
        let text;
        try {
          text = await readFile(params.path, "utf8");
        } catch (err) {
          if (err.code === "ENOENT") throw acp.RequestError.resourceNotFound(params.path);
          throw err;
        }
        if (params.line != null || params.limit != null) {
          const lines = text.split("\n");
          const start = Math.max((params.line ?? 1) - 1, 0);
          text = lines.slice(start, params.limit != null ? start + params.limit : undefined).join("\n");
        }
        return { content: text };
      })
      .onRequest(acp.methods.client.fs.writeTextFile, async ({ params }) => {
        this.fsCalls.push({ method: "fs/write_text_file", params });
        await mkdir(dirname(params.path), { recursive: true });
        await writeFile(params.path, params.content);
        return {};
      })
      .onRequest("*", ({ method }) => {
        throw acp.RequestError.methodNotFound(method);
      });
  }

  // Closes stdin as an editor does and waits (bounded) for a clean exit.
  async close() {
    if (!this.child.stdin.destroyed) this.child.stdin.end();
    const [code, signal] = await within(this.exited, 10_000, `${this.name} to exit after stdin closed`).catch((err) => {
      this.child.kill("SIGKILL");
      throw err;
    });
    this.flush();
    assert.equal(signal, null, `${this.name} was killed by ${signal}`);
    assert.equal(code, 0, `${this.name} exited with ${code}`);
  }

  // session/update frames on the wire (agent side), as parsed JSON.
  wireUpdates() {
    return this.transcript.filter((e) => e.from === "agent" && e.message?.method === "session/update").map((e) => e.message.params);
  }
}

// ---------------------------------------------------------------------------
// Helpers.

function within(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function until(cond, what, ms = STEP_MS) {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const textOf = (updates, kind) =>
  updates
    .filter((u) => u.update.sessionUpdate === kind && u.update.content?.type === "text")
    .map((u) => u.update.content.text)
    .join("");

// Every tool_result block in a Messages API request body.
const toolResults = (body) =>
  (body?.messages ?? []).flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === "tool_result");

const resultText = (block) =>
  typeof block.content === "string" ? block.content : (block.content ?? []).map((c) => c.text ?? "").join("");

// ---------------------------------------------------------------------------
// The scenario. Tests run in file order and share this state.

const PROMPT_WRITE = "Create hello.txt saying hello from the interop test.";
const PROMPT_STALL = "Think about it for a very long time.";
const PROMPT_AFTER_LOAD = "Are you still there?";
const FILE_CONTENT = "hello from the interop test\n";
const TOOL_USE_ID = "toolu_interop_write_1";

let root, home, stateDir, work, model;
let sessionId;
const agents = [];

before(async () => {
  assert.ok(BIN, "set CORDIS_BIN to the cordis binary (interop/run.sh builds it)");
  root = await mkdtemp(join(tmpdir(), "cordis-interop-"));
  home = join(root, "home");
  stateDir = join(root, "state");
  work = join(root, "work");
  await Promise.all([home, stateDir, work].map((d) => mkdir(d, { recursive: true })));
  model = new FakeModel();
  await model.start();
});

after(async () => {
  for (const a of agents) if (a.child.exitCode === null && a.child.signalCode === null) a.child.kill("SIGKILL");
  await model?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

test("first process: initialize, session/new, a permitted Write, a cancelled turn, set_config_option", { timeout: 90_000 }, async (t) => {
  const agent = new AgentProcess("agent #1", { model, stateDir, home, cwd: work });
  agents.push(agent);
  const target = join(work, "hello.txt");

  await agent.app().connectWith(agent.stream, async (ctx) => {
    await t.test("initialize", async () => {
      const init = await within(
        ctx.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
          clientInfo: { name: "cordis-interop", version: "1.0.0" },
        }),
        STEP_MS,
        "initialize",
      );
      assert.equal(init.protocolVersion, 1);
      assert.equal(init.agentInfo?.name, "cordis");
      assert.equal(init.agentCapabilities?.loadSession, true);
    });

    await t.test("session/new", async () => {
      const res = await within(ctx.request(acp.methods.agent.session.new, { cwd: work, mcpServers: [] }), STEP_MS, "session/new");
      assert.equal(typeof res.sessionId, "string");
      assert.ok(res.sessionId.length > 0);
      sessionId = res.sessionId;
      const ids = (res.configOptions ?? []).map((o) => o.id).sort();
      assert.deepEqual(ids, ["mode", "model"]);
    });

    await t.test("a prompt whose tool call asks permission, runs through fs/*, and reaches the model", async () => {
      model.script.push(
        toolUseReply("msg_interop_1", "I'll create the file.", TOOL_USE_ID, "Write", { file_path: target, content: FILE_CONTENT }),
        textReply("msg_interop_2", "Done: hello.txt is written."),
      );
      const res = await within(
        ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: PROMPT_WRITE }] }),
        STEP_MS,
        "the Write turn",
      );
      assert.equal(res.stopReason, "end_turn");

      assert.equal(agent.permissionRequests.length, 1, "one permission request");
      const perm = agent.permissionRequests[0];
      assert.equal(perm.sessionId, sessionId);
      assert.equal(perm.toolCall.toolCallId, TOOL_USE_ID);

      assert.equal(await readFile(target, "utf8"), FILE_CONTENT);
      assert.ok(
        agent.fsCalls.some((c) => c.method === "fs/write_text_file" && c.params.path === target && c.params.content === FILE_CONTENT),
        `the write went through fs/write_text_file: ${JSON.stringify(agent.fsCalls)}`,
      );

      assert.equal(model.requests.length, 2, "two model requests");
      const results = toolResults(model.requests[1]);
      const result = results.find((b) => b.tool_use_id === TOOL_USE_ID);
      assert.ok(result, `the second model request carries the tool result: ${JSON.stringify(model.requests[1].messages)}`);
      assert.notEqual(result.is_error, true, `tool result is an error: ${resultText(result)}`);
      assert.match(resultText(result), /hello\.txt/);

      const mine = agent.updates.filter((u) => u.sessionId === sessionId);
      const calls = mine.filter((u) => u.update.sessionUpdate === "tool_call" && u.update.toolCallId === TOOL_USE_ID);
      assert.equal(calls.length, 1, "one tool_call update");
      const finals = mine.filter((u) => u.update.sessionUpdate === "tool_call_update" && u.update.toolCallId === TOOL_USE_ID && u.update.status === "completed");
      assert.equal(finals.length, 1, "the tool call completed");
      assert.match(textOf(mine, "agent_message_chunk"), /I'll create the file\.\s*Done: hello\.txt is written\./);
    });

    await t.test("session/cancel while the model stalls ends the turn cancelled", async () => {
      model.script.push(stallingReply("msg_interop_3", "Let me think"));
      const sent = model.requests.length;
      const prompt = ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: PROMPT_STALL }] });
      await until(() => model.requests.length > sent && model.open.size === 1, "the stalled model request");
      await until(
        () => agent.updates.some((u) => u.sessionId === sessionId && u.update.sessionUpdate === "agent_message_chunk" && u.update.content?.text === "Let me think"),
        "the streamed text before the stall",
      );
      await ctx.notify(acp.methods.agent.session.cancel, { sessionId });
      const res = await within(prompt, STEP_MS, "the cancelled prompt's answer");
      assert.equal(res.stopReason, "cancelled");
      await until(() => model.open.size === 0, "cordis to drop the stalled model stream");
    });

    await t.test("session/set_config_option (mode) returns every option", async () => {
      const res = await within(
        ctx.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: "mode", value: "acceptEdits" }),
        STEP_MS,
        "session/set_config_option",
      );
      const byId = Object.fromEntries(res.configOptions.map((o) => [o.id, o]));
      assert.deepEqual(Object.keys(byId).sort(), ["mode", "model"]);
      assert.equal(byId.mode.currentValue, "acceptEdits");
      assert.ok(byId.model.currentValue, "the model option keeps its value");
    });
  });
  await agent.close();

  assert.deepEqual(model.unexpected, [], "requests the fake model had no reply for");
  assert.equal(agent.updates.length, agent.wireUpdates().length, "the SDK accepted every session/update cordis sent");
});

test("second process: session/load replays the first session, then the conversation goes on", { timeout: 60_000 }, async (t) => {
  assert.ok(sessionId, "the first test created a session");
  const agent = new AgentProcess("agent #2", { model, stateDir, home, cwd: work });
  agents.push(agent);

  await agent.app().connectWith(agent.stream, async (ctx) => {
    await within(
      ctx.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
      }),
      STEP_MS,
      "initialize",
    );

    await t.test("session/load replays the updates before it answers", async () => {
      const res = await within(
        ctx.request(acp.methods.agent.session.load, { sessionId, cwd: work, mcpServers: [] }),
        STEP_MS,
        "session/load",
      );
      assert.ok(res && typeof res === "object");

      // On the wire: the replayed conversation precedes the load response.
      const loadReq = agent.transcript.find((e) => e.from === "client" && e.message?.method === "session/load");
      const answerAt = agent.transcript.findIndex((e) => e.from === "agent" && e.message?.id === loadReq.message.id && !("method" in e.message));
      assert.ok(answerAt > 0, "the load response is on the wire");
      const replayed = agent.transcript
        .slice(0, answerAt)
        .filter((e) => e.from === "agent" && e.message?.method === "session/update" && e.message.params.sessionId === sessionId)
        .map((e) => e.message.params);
      assert.match(textOf(replayed, "user_message_chunk"), new RegExp(`${PROMPT_WRITE.replace(/\./g, "\\.")}[\\s\\S]*${PROMPT_STALL.replace(/\./g, "\\.")}`));
      assert.match(textOf(replayed, "agent_message_chunk"), /I'll create the file\.[\s\S]*Done: hello\.txt is written\./);
      assert.ok(
        replayed.some((u) => u.update.sessionUpdate === "tool_call" && u.update.toolCallId === TOOL_USE_ID),
        "the Write tool call is replayed",
      );
      assert.ok(
        replayed.some((u) => u.update.sessionUpdate === "tool_call_update" && u.update.toolCallId === TOOL_USE_ID && u.update.status === "completed"),
        "the Write tool call's completion is replayed",
      );
    });

    await t.test("a prompt after load sends the whole history to the model", async () => {
      model.script.push(textReply("msg_interop_4", "Yes, still here."));
      const sent = model.requests.length;
      const res = await within(
        ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: PROMPT_AFTER_LOAD }] }),
        STEP_MS,
        "the prompt after load",
      );
      assert.equal(res.stopReason, "end_turn");
      assert.equal(model.requests.length, sent + 1);
      const body = JSON.stringify(model.requests.at(-1).messages);
      for (const want of [PROMPT_WRITE, TOOL_USE_ID, PROMPT_STALL, PROMPT_AFTER_LOAD]) {
        assert.ok(body.includes(want), `the request after load lacks ${JSON.stringify(want)}: ${body.slice(0, 2000)}`);
      }
    });
  });
  await agent.close();

  assert.deepEqual(model.unexpected, [], "requests the fake model had no reply for");
  assert.equal(agent.updates.length, agent.wireUpdates().length, "the SDK accepted every session/update cordis sent");
});

test("third process: session/resume reopens without a replay, session/delete removes the session", { timeout: 60_000 }, async (t) => {
  assert.ok(sessionId, "the first test created a session");
  const agent = new AgentProcess("agent #3", { model, stateDir, home, cwd: work });
  agents.push(agent);

  await agent.app().connectWith(agent.stream, async (ctx) => {
    const init = await within(
      ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} }),
      STEP_MS,
      "initialize",
    );
    assert.deepEqual(init.agentCapabilities?.sessionCapabilities?.resume, {});
    assert.deepEqual(init.agentCapabilities?.sessionCapabilities?.delete, {});

    await t.test("session/resume answers without replaying, and the history is kept", async () => {
      const res = await within(ctx.request(acp.methods.agent.session.resume, { sessionId, cwd: work }), STEP_MS, "session/resume");
      assert.ok(res && typeof res === "object");
      const shown = agent.transcript.filter(
        (e) => e.from === "agent" && e.message?.method === "session/update" && ["user_message_chunk", "agent_message_chunk", "tool_call"].includes(e.message.params.update.sessionUpdate),
      );
      assert.deepEqual(shown, [], "resume sent conversation updates");

      model.script.push(textReply("msg_interop_5", "Resumed."));
      const turn = await within(
        ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "And after a resume?" }] }),
        STEP_MS,
        "the prompt after resume",
      );
      assert.equal(turn.stopReason, "end_turn");
      const body = JSON.stringify(model.requests.at(-1).messages);
      for (const want of [PROMPT_WRITE, PROMPT_AFTER_LOAD, "And after a resume?"]) {
        assert.ok(body.includes(want), `the request after resume lacks ${JSON.stringify(want)}`);
      }
    });

    await t.test("session/delete removes it from session/list", async () => {
      await within(ctx.request(acp.methods.agent.session.delete, { sessionId }), STEP_MS, "session/delete");
      const list = await within(ctx.request(acp.methods.agent.session.list, {}), STEP_MS, "session/list");
      assert.ok(!list.sessions.some((s) => s.sessionId === sessionId), "the deleted session is still listed");
    });
  });
  await agent.close();
  assert.deepEqual(model.unexpected, [], "requests the fake model had no reply for");
});

test("every frame cordis wrote validates against the ACP v1 schema", async () => {
  assert.equal(agents.length, 3, "the three processes ran");
  // Beside the Go suites' transcripts, when run.sh collects them.
  const keep = process.env.CORDIS_ACP_TRANSCRIPT_DIR;
  if (keep) {
    await mkdir(keep, { recursive: true });
    for (const [i, a] of agents.entries()) {
      await writeFile(join(keep, `interop-agent-${i + 1}-${process.pid}.jsonl`), a.transcript.map((e) => JSON.stringify(e)).join("\n") + "\n");
    }
  }
  let checked = 0;
  const violations = [];
  for (const a of agents) {
    const r = validateTranscript(a.transcript, { name: a.name });
    checked += r.checked;
    violations.push(...r.violations);
  }
  if (violations.length > 0) {
    const dir = await mkdtemp(join(tmpdir(), "cordis-interop-transcripts-"));
    for (const [i, a] of agents.entries()) {
      await writeFile(join(dir, `agent-${i + 1}.jsonl`), a.transcript.map((e) => JSON.stringify(e)).join("\n") + "\n");
    }
    assert.fail(`${violations.length} schema violations in ${checked} agent frames (transcripts kept in ${dir}):\n\n${violations.map(formatViolation).join("\n\n")}`);
  }
  assert.ok(checked > 20, `only ${checked} agent frames were checked`);
});
