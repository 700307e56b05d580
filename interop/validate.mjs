#!/usr/bin/env node
// Validates every message an ACP agent sent against the official ACP v1 JSON
// Schema shipped in @agentclientprotocol/sdk (schema/v1/schema.json).
//
// A transcript is JSON Lines, one frame per line in wire order:
//   {"from":"client"|"agent","message":<frame>}
//   {"from":"client"|"agent","raw":"<a line that is not JSON>"}
// (acp/acptest writes these when CORDIS_ACP_TRANSCRIPT_DIR is set; the Node
// interop test builds the same shape from the bytes on the pipes.)
//
// The client's frames are only read to learn which method each response
// answers. Each agent frame is checked twice: against the root schema's
// "Agent" branch (or "ProtocolLevel" for $/ notifications), and against the
// precise type for its method, because the root branches are unions loose
// enough to let a wrong result shape through.
//
// CLI: node validate.mjs FILE.jsonl...   (exit 1 on any violation)

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import Ajv2020 from "ajv/dist/2020.js";

const require = createRequire(import.meta.url);
const SCHEMA_PATH = require.resolve("@agentclientprotocol/sdk/schema/v1/schema.json");
const schema = JSON.parse(readFileSync(SCHEMA_PATH, "utf8"));
const SCHEMA_ID = "acp-v1";
// Methods cordis offers from the unstable part of the protocol (advertised
// as such) are checked against the unstable schema of the same package.
const UNSTABLE_SCHEMA_PATH = require.resolve("@agentclientprotocol/sdk/schema/v1/schema.unstable.json");
const unstableSchema = JSON.parse(readFileSync(UNSTABLE_SCHEMA_PATH, "utf8"));
const UNSTABLE_SCHEMA_ID = "acp-v1-unstable";

// Result type of each agent-side method (what the agent answers with).
export const RESPONSE_TYPES = {
  initialize: "InitializeResponse",
  authenticate: "AuthenticateResponse",
  logout: "LogoutResponse",
  "session/new": "NewSessionResponse",
  "session/load": "LoadSessionResponse",
  "session/list": "ListSessionsResponse",
  "session/delete": "DeleteSessionResponse",
  "session/resume": "ResumeSessionResponse",
  "session/close": "CloseSessionResponse",
  "session/set_mode": "SetSessionModeResponse",
  "session/set_config_option": "SetSessionConfigOptionResponse",
  "session/prompt": "PromptResponse",
};

// Result type of each unstable agent-side method cordis answers.
export const UNSTABLE_RESPONSE_TYPES = {
  "session/fork": "ForkSessionResponse",
};

// Params type of each request the agent may send to the client.
export const AGENT_REQUEST_TYPES = {
  "session/request_permission": "RequestPermissionRequest",
  "fs/read_text_file": "ReadTextFileRequest",
  "fs/write_text_file": "WriteTextFileRequest",
  "terminal/create": "CreateTerminalRequest",
  "terminal/output": "TerminalOutputRequest",
  "terminal/release": "ReleaseTerminalRequest",
  "terminal/wait_for_exit": "WaitForTerminalExitRequest",
  "terminal/kill": "KillTerminalRequest",
  "elicitation/create": "CreateElicitationRequest",
};

// Params type of each notification the agent may send.
export const AGENT_NOTIFICATION_TYPES = {
  "session/update": "SessionNotification",
  "elicitation/complete": "CompleteElicitationNotification",
  "$/cancel_request": "CancelRequestNotification",
};

// discriminator: the schema tags its unions (SessionUpdate by sessionUpdate,
// ContentBlock by type, ...); Ajv then checks only the tagged branch, so an
// error names the field that is wrong rather than every branch that failed.
// verbose: errors carry their schema object, which locate() turns into an
// absolute path in schema.json.
const ajv = new Ajv2020({ strict: false, allowUnionTypes: true, discriminator: true, verbose: true });
// The schema's numeric formats are Rust widths; check their ranges rather
// than ignoring them (Ajv knows none of them without ajv-formats).
const integerFormat = (min, max) => ({ type: "number", validate: (x) => Number.isInteger(x) && x >= min && x <= max });
ajv.addFormat("int32", integerFormat(-(2 ** 31), 2 ** 31 - 1));
ajv.addFormat("int64", integerFormat(-(2 ** 63), 2 ** 63));
ajv.addFormat("uint16", integerFormat(0, 2 ** 16 - 1));
ajv.addFormat("uint32", integerFormat(0, 2 ** 32 - 1));
ajv.addFormat("uint64", integerFormat(0, 2 ** 64));
ajv.addFormat("double", { type: "number", validate: Number.isFinite });
// An absolute URI: a scheme, a colon, no whitespace.
ajv.addFormat("uri", { type: "string", validate: /^[A-Za-z][A-Za-z0-9+.-]*:\S*$/ });
ajv.addSchema(schema, SCHEMA_ID);
ajv.addSchema(unstableSchema, UNSTABLE_SCHEMA_ID);

const rootBranch = (title) => {
  const i = schema.anyOf.findIndex((b) => b.title === title);
  if (i < 0) throw new Error(`schema has no root branch ${title}`);
  return ajv.compile({ $ref: `${SCHEMA_ID}#/anyOf/${i}` });
};
const validators = new Map();
const defValidator = (name) => {
  if (!validators.has(name)) {
    if (!schema.$defs[name]) throw new Error(`schema has no $defs/${name}`);
    validators.set(name, ajv.compile({ $ref: `${SCHEMA_ID}#/$defs/${name}` }));
  }
  return validators.get(name);
};
const unstableValidators = new Map();
const unstableDefValidator = (name) => {
  if (!unstableValidators.has(name)) {
    if (!unstableSchema.$defs[name]) throw new Error(`unstable schema has no $defs/${name}`);
    unstableValidators.set(name, ajv.compile({ $ref: `${UNSTABLE_SCHEMA_ID}#/$defs/${name}` }));
  }
  return unstableValidators.get(name);
};
for (const name of Object.values(UNSTABLE_RESPONSE_TYPES)) unstableDefValidator(name);
const agentBranch = rootBranch("Agent");
const protocolBranch = rootBranch("ProtocolLevel");
// Fail at load time, not mid-run, if the schema lacks a type named above.
for (const name of [
  ...Object.values(RESPONSE_TYPES),
  ...Object.values(AGENT_REQUEST_TYPES),
  ...Object.values(AGENT_NOTIFICATION_TYPES),
  "Error",
]) {
  defValidator(name);
}

// Absolute JSON pointer of every schema object in schema.json.
const pointers = new WeakMap();
(function walk(node, ptr) {
  if (node === null || typeof node !== "object") return;
  if (!pointers.has(node)) pointers.set(node, ptr);
  for (const [k, v] of Object.entries(node)) walk(v, `${ptr}/${k.replaceAll("~", "~0").replaceAll("/", "~1")}`);
})(schema, "#");
const locate = (e) => {
  const at = pointers.get(e.parentSchema);
  return at ? `${at}/${e.keyword}` : e.schemaPath;
};

const truncate = (s, n = 400) => (s.length <= n ? s : s.slice(0, n) + `... (${s.length} chars)`);
const idKey = (id) => JSON.stringify(id);
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

// Ajv's errors as "instancePath message (schema path)" lines. Failed
// alternatives of one enum-like union ("must be equal to constant" per
// branch) are folded into a single "must be one of" line.
function describeErrors(errors, base) {
  const lines = [];
  const consts = new Map();
  const seen = new Set();
  for (const e of errors ?? []) {
    const at = base + (e.instancePath || "") || "/";
    if (e.keyword === "const") {
      if (!consts.has(at)) {
        consts.set(at, { values: [], line: lines.length, path: locate(e) });
        lines.push(null);
      }
      consts.get(at).values.push(e.params.allowedValue);
      continue;
    }
    if (e.keyword === "anyOf" || e.keyword === "oneOf") continue; // the branches' errors say why
    const params = e.params && Object.keys(e.params).length ? " " + JSON.stringify(e.params) : "";
    const key = `${at} ${e.message}${params}`;
    if (seen.has(key)) continue; // the same complaint from another branch
    seen.add(key);
    lines.push(`${key} (schema ${locate(e)})`);
  }
  for (const [at, c] of consts) {
    const what = c.values.length === 1 ? `must be ${JSON.stringify(c.values[0])}` : `must be one of ${JSON.stringify(c.values)}`;
    lines[c.line] = `${at} ${what} (schema ${c.path.replace(/\/(anyOf|oneOf)\/\d+\/const$/, "/$1")})`;
  }
  const out = lines.filter((l) => l !== null);
  return out.length > 8 ? [...out.slice(0, 8), `... ${out.length - 8} more`] : out;
}

/**
 * Validates one transcript (an array of {from, message} or {from, raw}).
 * Returns {checked, violations}; each violation is
 * {line, method, schemaType, message, errors: [string]}.
 */
export function validateTranscript(entries, { name = "transcript" } = {}) {
  const pending = new Map(); // client request id -> [method, ...] (oldest first)
  const violations = [];
  let checked = 0;
  const fail = (line, method, schemaType, message, errors) =>
    violations.push({ transcript: name, line, method, schemaType, message: truncate(JSON.stringify(message) ?? String(message)), errors });

  entries.forEach((entry, i) => {
    const line = i + 1;
    if (entry.from === "client") {
      const m = entry.message;
      if (isObject(m) && typeof m.method === "string" && "id" in m && m.id !== undefined) {
        const k = idKey(m.id);
        if (!pending.has(k)) pending.set(k, []);
        pending.get(k).push(m.method);
      }
      return;
    }
    if (entry.from !== "agent") {
      fail(line, "", "", entry, [`transcript entry with unknown "from": ${JSON.stringify(entry.from)}`]);
      return;
    }
    checked++;
    if (!("message" in entry)) {
      fail(line, "", "", entry.raw, ["the agent wrote a line that is not JSON"]);
      return;
    }
    const m = entry.message;
    if (!isObject(m)) {
      fail(line, "", "", m, ["the agent wrote a JSON value that is not an object"]);
      return;
    }
    const isRequest = typeof m.method === "string" && "id" in m;
    const isNotification = typeof m.method === "string" && !("id" in m);
    const isResponse = !("method" in m) && "id" in m && ("result" in m || "error" in m);

    let method = m.method ?? "";
    if (isResponse) {
      const queue = pending.get(idKey(m.id));
      if (queue?.length) method = queue.shift();
      else method = "";
    }

    const before = violations.length;
    // 1. The precise type for the method.
    if (isResponse) {
      if ("result" in m && "error" in m) {
        fail(line, method, "", m, ["a response has both result and error"]);
      } else if ("error" in m) {
        const v = defValidator("Error");
        if (!v(m.error)) fail(line, method, "Error", m, describeErrors(v.errors, "/error"));
      } else if (!method) {
        fail(line, "", "", m, [`a result for id ${idKey(m.id)}, which no client request used`]);
      } else {
        const type = RESPONSE_TYPES[method];
        const unstableType = UNSTABLE_RESPONSE_TYPES[method];
        if (!type && unstableType) {
          const v = unstableDefValidator(unstableType);
          if (!v(m.result)) fail(line, method, `${unstableType} (unstable)`, m, describeErrors(v.errors, "/result"));
        } else if (!type) {
          // Only "_"-prefixed extension methods have no schema type.
          if (!method.startsWith("_")) fail(line, method, "", m, [`no response type known for method ${method}`]);
        } else {
          const v = defValidator(type);
          if (!v(m.result)) fail(line, method, type, m, describeErrors(v.errors, "/result"));
        }
      }
    } else if (isRequest || isNotification) {
      const table = isRequest ? AGENT_REQUEST_TYPES : AGENT_NOTIFICATION_TYPES;
      const type = table[method];
      if (!type) {
        if (!method.startsWith("_")) fail(line, method, "", m, [`the agent sent a ${isRequest ? "request" : "notification"} with an unknown method`]);
      } else {
        const v = defValidator(type);
        if (!v(m.params)) fail(line, method, type, m, describeErrors(v.errors, "/params"));
      }
      if (isRequest && (m.id === null || (typeof m.id !== "string" && !Number.isInteger(m.id)))) {
        fail(line, method, "RequestId", m, ["request id must be a string or an integer"]);
      }
    } else {
      fail(line, method, "", m, ["neither a request, a notification nor a response"]);
    }

    // 2. The root schema's branch for the sender (reported only when the
    // precise check passed: its errors would repeat the same fault, vaguer).
    const root = isNotification && method.startsWith("$/") ? protocolBranch : agentBranch;
    if (!root(m) && violations.length === before) {
      const branch = root === protocolBranch ? "ProtocolLevel" : "Agent";
      fail(line, method, `root ${branch}`, m, describeErrors(root.errors, ""));
    }
  });
  return { checked, violations };
}

/** Parses a transcript file (JSON Lines). */
export function readTranscript(file) {
  const text = readFileSync(file, "utf8");
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l, i) => {
      try {
        return JSON.parse(l);
      } catch (err) {
        throw new Error(`${file}:${i + 1}: not a transcript line: ${err.message}`);
      }
    });
}

/** Validates transcript files; returns {messages, transcripts, violations}. */
export function validateFiles(files) {
  let messages = 0;
  const violations = [];
  for (const file of files) {
    const r = validateTranscript(readTranscript(file), { name: basename(file) });
    messages += r.checked;
    violations.push(...r.violations);
  }
  return { messages, transcripts: files.length, violations };
}

/** One human-readable paragraph per violation. */
export function formatViolation(v) {
  const head = `${v.transcript}:${v.line} method=${v.method || "?"}${v.schemaType ? ` type=${v.schemaType}` : ""}`;
  return [head, ...v.errors.map((e) => "  " + e), "  message: " + v.message].join("\n");
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const files = process.argv.slice(2);
  if (files.length === 0) {
    console.error("usage: node validate.mjs TRANSCRIPT.jsonl...");
    process.exit(2);
  }
  const { messages, transcripts, violations } = validateFiles(files);
  for (const v of violations) console.error(formatViolation(v) + "\n");
  console.log(`${messages} messages in ${transcripts} transcripts validated, ${violations.length} violations`);
  process.exit(violations.length ? 1 : 0);
}
