// The validator itself: valid frames pass, and each kind of fault is caught
// with its method and schema path. A validator that accepted everything
// would make every other check here worthless.

import assert from "node:assert/strict";
import { test } from "node:test";
import { validateTranscript } from "./validate.mjs";

const client = (message) => ({ from: "client", message });
const agent = (message) => ({ from: "agent", message });
const req = (id, method, params) => client({ jsonrpc: "2.0", id, method, params });
const update = (update) => agent({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s1", update } });

function only(entries) {
  const { violations } = validateTranscript(entries);
  assert.equal(violations.length, 1, JSON.stringify(violations, null, 1));
  return violations[0];
}

test("valid frames pass", () => {
  const { checked, violations } = validateTranscript([
    req(0, "initialize", { protocolVersion: 1, clientCapabilities: {} }),
    agent({ jsonrpc: "2.0", id: 0, result: { protocolVersion: 1, agentCapabilities: { loadSession: true }, authMethods: [] } }),
    req(1, "session/new", { cwd: "/w", mcpServers: [] }),
    agent({ jsonrpc: "2.0", id: 1, result: { sessionId: "s1" } }),
    req("p", "session/prompt", { sessionId: "s1", prompt: [{ type: "text", text: "hi" }] }),
    update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "" } }),
    update({ sessionUpdate: "tool_call", toolCallId: "t1", title: "Write a.txt", kind: "edit", status: "pending", locations: [{ path: "/w/a.txt" }] }),
    agent({ jsonrpc: "2.0", id: "c1", method: "session/request_permission", params: { sessionId: "s1", toolCall: { toolCallId: "t1" }, options: [{ optionId: "allow_once", name: "Allow", kind: "allow_once" }] } }),
    client({ jsonrpc: "2.0", id: "c1", result: { outcome: { outcome: "selected", optionId: "allow_once" } } }),
    update({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed", content: [{ type: "diff", path: "/w/a.txt", oldText: null, newText: "x" }] }),
    agent({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: "c1" } }),
    agent({ jsonrpc: "2.0", id: "p", result: { stopReason: "end_turn" } }),
    { from: "client", raw: "garbage {" },
    agent({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } }),
    req(2, "session/set_config_option", { sessionId: "s1", configId: "mode", value: "plan" }),
    agent({ jsonrpc: "2.0", id: 2, result: { configOptions: [{ id: "mode", name: "Mode", type: "select", currentValue: "plan", options: [{ value: "plan", name: "Plan" }] }] } }),
  ]);
  assert.deepEqual(violations, []);
  assert.equal(checked, 10);
});

test("a bad stop reason is caught against PromptResponse", () => {
  const v = only([req(7, "session/prompt", { sessionId: "s1", prompt: [] }), agent({ jsonrpc: "2.0", id: 7, result: { stopReason: "weird" } })]);
  assert.equal(v.method, "session/prompt");
  assert.equal(v.schemaType, "PromptResponse");
  assert.match(v.errors[0], /^\/result\/stopReason must be one of .*\(schema #\/\$defs\/StopReason\/oneOf\)$/);
});

test("the result is checked against the type of the method its id answers", () => {
  // A valid PromptResponse is not a valid NewSessionResponse.
  const v = only([req(1, "session/new", { cwd: "/w", mcpServers: [] }), agent({ jsonrpc: "2.0", id: 1, result: { stopReason: "end_turn" } })]);
  assert.equal(v.schemaType, "NewSessionResponse");
  assert.match(v.errors.join("\n"), /sessionId/);
});

test("a tool_call without a title is caught at the ToolCall type", () => {
  const v = only([update({ sessionUpdate: "tool_call", toolCallId: "t1" })]);
  assert.equal(v.method, "session/update");
  assert.match(v.errors[0], /\/params\/update must have required property 'title'.*#\/\$defs\/ToolCall\/required/);
});

test("a reverse request with missing params is caught", () => {
  const v = only([agent({ jsonrpc: "2.0", id: "c1", method: "session/request_permission", params: { sessionId: "s1" } })]);
  assert.equal(v.schemaType, "RequestPermissionRequest");
  assert.match(v.errors[0], /toolCall/);
});

test("an error with a non-integer code is caught", () => {
  const v = only([req(3, "session/load", {}), agent({ jsonrpc: "2.0", id: 3, error: { code: "oops", message: "no" } })]);
  assert.equal(v.schemaType, "Error");
  assert.equal(v.method, "session/load");
});

test("a frame without jsonrpc fails the root Agent branch", () => {
  const v = only([req(4, "session/prompt", {}), agent({ id: 4, result: { stopReason: "end_turn" } })]);
  assert.equal(v.schemaType, "root Agent");
  assert.match(v.errors.join("\n"), /jsonrpc/);
});

test("out-of-range integers are caught (formats are checked)", () => {
  const v = only([update({ sessionUpdate: "tool_call", toolCallId: "t1", title: "x", locations: [{ path: "/a", line: 2 ** 40 }] })]);
  assert.match(v.errors.join("\n"), /locations\/0\/line must match format "uint32"/);
});

test("a non-JSON line, an unknown method and a result for no request are caught", () => {
  const { violations } = validateTranscript([
    { from: "agent", raw: "log: starting" },
    agent({ jsonrpc: "2.0", method: "session/frobnicate", params: {} }),
    agent({ jsonrpc: "2.0", id: 99, result: {} }),
  ]);
  assert.deepEqual(
    violations.map((v) => v.errors[0]),
    ["the agent wrote a line that is not JSON", "the agent sent a notification with an unknown method", "a result for id 99, which no client request used"],
  );
});
