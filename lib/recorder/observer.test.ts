import { describe, expect, it } from "vitest";
import { McpObserver } from "./observer";

// The recorder's reading of MCP traffic, message by message, with no process and no network.
const T = (s: number) => new Date(Date.UTC(2026, 11, 4, 10, 0, s)).toISOString();

function listed(observer: McpObserver) {
  observer.fromAgent({ jsonrpc: "2.0", id: 0, method: "initialize", params: {} }, T(0));
  observer.fromServer({ jsonrpc: "2.0", id: 0, result: { serverInfo: { name: "bank", version: "1" } } }, T(0));
  observer.fromAgent({ jsonrpc: "2.0", id: 1, method: "tools/list" }, T(0));
  return observer.fromServer(
    {
      jsonrpc: "2.0",
      id: 1,
      result: {
        tools: [
          { name: "get_balance", annotations: { readOnlyHint: true } },
          { name: "search_web", annotations: { openWorldHint: true, readOnlyHint: false } },
          { name: "send_money", annotations: { destructiveHint: true } },
        ],
      },
    },
    T(0),
  );
}

describe("McpObserver", () => {
  it("suggests a class per tool from its annotations, and names the server as their source", () => {
    const observer = new McpObserver();
    expect(listed(observer).suggestions.map((s) => [s.tool, s.suggestedClass])).toEqual([
      ["get_balance", "read_only"],
      ["search_web", "external"],
      ["send_money", "sync_confirmed"],
    ]);
    expect(observer.serverName).toBe("bank");
  });

  it("records a call as an effect requested at the request and completed at a plain answer; resources it links as touches", () => {
    const observer = new McpObserver();
    listed(observer);
    const request = observer.fromAgent(
      { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "get_balance", arguments: { account: "alice" } } },
      T(1),
    );
    expect(request.events).toEqual([
      {
        eventId: "call-7-requested",
        type: "effect_requested",
        at: T(1),
        effectId: "call-7",
        tool: "get_balance",
        callId: "7",
        arguments: { account: "alice" },
      },
    ]);
    const answer = observer.fromServer(
      {
        jsonrpc: "2.0",
        id: 7,
        result: {
          content: [
            { type: "text", text: "100" },
            { type: "resource_link", uri: "bank://accounts/alice", name: "alice" },
          ],
        },
      },
      T(2),
    );
    expect(answer.events).toEqual([
      { eventId: "call-7-status-1", type: "effect_status", at: T(2), effectId: "call-7", status: "completed" },
      { eventId: "touch-1", type: "touch", at: T(2), surface: "bank://accounts/alice", op: "read" },
    ]);
  });

  it("takes a call answered with a task as pending with the task's id as handle, suggests async_handle, and follows the task to its end", () => {
    const observer = new McpObserver();
    listed(observer);
    observer.fromAgent(
      { jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "send_money", arguments: {}, task: { ttl: 1000 } } },
      T(1),
    );
    const answer = observer.fromServer({ jsonrpc: "2.0", id: 8, result: { task: { taskId: "t-1", status: "working" } } }, T(2));
    expect(answer.events).toEqual([
      {
        eventId: "call-8-status-1",
        type: "effect_status",
        at: T(2),
        effectId: "call-8",
        status: "pending",
        handle: "t-1",
      },
    ]);
    expect(answer.poll).toEqual([{ taskId: "t-1", effectId: "call-8" }]);
    expect(answer.suggestions).toMatchObject([{ tool: "send_money", suggestedClass: "async_handle" }]);
    expect(observer.polled("t-1", { status: "working" }, T(3)).events).toEqual([]); // no change, no event
    expect(observer.isSettled("t-1")).toBe(false);
    // The task's status read by its handle is evidence, naming how it was read.
    expect(observer.polled("t-1", { status: "completed" }, T(4)).events).toMatchObject([
      {
        eventId: "call-8-status-2",
        status: "completed",
        at: T(4),
        evidence: { task: "t-1", status: "completed" },
        source: "MCP tasks/get (the recorder's poll)",
      },
    ]);
    expect([observer.isSettled("t-1"), observer.completedAt("t-1")]).toEqual([true, T(4)]);
    // What the task wrote, from its result: a write touch of each linked resource, at its completion.
    const written = observer.taskResult("t-1", { content: [{ type: "resource_link", uri: "bank://accounts/bob", name: "bob" }] }, T(4));
    expect(written.events).toEqual([{ eventId: "touch-1", type: "touch", at: T(4), surface: "bank://accounts/bob", op: "write" }]);
    // A later status cannot move it out of its terminal one.
    expect(observer.polled("t-1", { status: "failed" }, T(5)).events).toEqual([]);
    // tools/list again keeps what a task answer taught.
    expect(listed(observer).suggestions.find((s) => s.tool === "send_money")?.suggestedClass).toBe("async_handle");
  });

  it("records an error answer as failed, a resources/read as a read touch, and ignores the traffic it does not audit", () => {
    const observer = new McpObserver();
    observer.fromAgent({ jsonrpc: "2.0", id: "a", method: "tools/call", params: { name: "send_money" } }, T(1));
    const failed = observer.fromServer({ jsonrpc: "2.0", id: "a", error: { code: -32602, message: "bad amount" } }, T(2)).events;
    expect(failed).toMatchObject([{ effectId: "call-a", status: "failed", detail: "JSON-RPC error -32602: bad amount" }]);
    // The server's answer to a call is its word about its own call, never evidence.
    expect(failed[0]).not.toHaveProperty("evidence");
    expect(
      observer.fromAgent({ jsonrpc: "2.0", id: "b", method: "resources/read", params: { uri: "bank://accounts/carol" } }, T(3)).events,
    ).toEqual([{ eventId: "touch-1", type: "touch", at: T(3), surface: "bank://accounts/carol", op: "read" }]);
    expect(observer.fromAgent({ jsonrpc: "2.0", method: "notifications/initialized" }, T(4)).events).toEqual([]);
    expect(observer.fromServer({ jsonrpc: "2.0", id: "unknown", result: {} }, T(4)).events).toEqual([]);
    // Two calls with one JSON-RPC id (a new session) stay two effects.
    observer.fromAgent({ jsonrpc: "2.0", id: "a", method: "tools/call", params: { name: "send_money" } }, T(5));
    expect(observer.fromServer({ jsonrpc: "2.0", id: "a", result: { content: [] } }, T(6)).events).toMatchObject([
      { effectId: "call-a-2" },
    ]);
  });
});
