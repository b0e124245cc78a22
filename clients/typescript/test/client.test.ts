/** The client against a real `mnemo serve`: the chat loop, memories, errors, the user in control. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { MnemoClient, MnemoError, type RequestBody, type Result } from "../src/index.js";
import { KEY, type RunningServer, startServer } from "./server.js";

// compile-time: the types read off the document are real types, never `any` (tsc fails otherwise)
type IsAny<T> = 0 extends 1 & T ? true : false;
const typed: [IsAny<Result<"/v1/users/{user_id}/retrieve", "post">>, IsAny<RequestBody<"/v1/users/{user_id}/turns", "post">>,
  IsAny<Result<"/v1/users/{user_id}/memories", "get">>] = [false, false, false];
void typed;

async function until<T>(read: () => Promise<T>, ready: (value: T) => boolean, seconds = 30): Promise<T> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const value = await read();
    if (ready(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("MnemoClient against mnemo serve", () => {
  let server: RunningServer;
  let mnemo: MnemoClient;

  before(async () => {
    server = await startServer();
    mnemo = new MnemoClient({ baseUrl: server.url, apiKey: KEY });
  });

  after(async () => {
    await server?.stop();
  });

  test("health answers without a key", async () => {
    const health = await new MnemoClient({ baseUrl: server.url }).health();
    assert.equal(health.status, "ok");
    assert.equal(health.backend, "local");
  });

  test("the chat loop: turns, close, then retrieve finds what was learned", async () => {
    const accepted = await mnemo.addTurns("ana", {
      conversation_id: "conv-1",
      messages: [
        { role: "user", content: "Hi! I live in Lisbon and I am vegetarian." },
        { role: "assistant", content: "Nice to meet you!" },
      ],
    });
    assert.equal(accepted.accepted, 2);
    await mnemo.closeConversation("ana", "conv-1");
    const page = await until(() => mnemo.listMemories("ana"), (p) => p.items.length >= 2);
    assert.ok(page.items.some((m) => m.content.includes("Lisbon")), JSON.stringify(page.items));
    const block = await mnemo.retrieve("ana", { query: "Any good cafés near where I live?" });
    assert.equal(block.decision, "retrieve");
    assert.match(block.context, /Lisbon/);
    assert.ok(block.trace_id);
    const trace = await mnemo.getTrace(block.trace_id as string);
    assert.equal(trace.decision, "retrieve");
    assert.ok((trace.selected ?? []).length > 0);
  });

  test("remember, read, update with its version, search, delete", async () => {
    const created = await mnemo.remember("bo", { content: "I am allergic to peanuts." });
    assert.equal(created.outcome, "created");
    const memory = created.memory;
    assert.ok(memory);
    const read = await mnemo.getMemory("bo", memory.memory_id);
    assert.equal(read.content, memory.content);
    const updated = await mnemo.updateMemory("bo", memory.memory_id, { content: "I am allergic to peanuts and cashews.",
                                                                version: memory.version });
    assert.match(updated.content, /cashews/);
    // the same version again is a concurrent edit: 409, the API's code carried by the error
    await assert.rejects(mnemo.updateMemory("bo", memory.memory_id, { content: "stale", version: memory.version }),
      (error: unknown) => error instanceof MnemoError && error.status === 409 && error.code === "version_conflict");
    const found = await mnemo.search("bo", { query: "food allergies" });
    assert.equal(found.items[0]?.memory_id, memory.memory_id);
    await mnemo.deleteMemory("bo", memory.memory_id);
    await assert.rejects(mnemo.getMemory("bo", memory.memory_id),
      (error: unknown) => error instanceof MnemoError && error.status === 404 && error.code === "not_found");
  });

  test("bad input is a MnemoError naming the field", async () => {
    await assert.rejects(mnemo.retrieve("ana", { query: "" }), (error: unknown) => {
      assert.ok(error instanceof MnemoError);
      assert.ok(error.status === 400 || error.status === 422, String(error.status));
      assert.match(JSON.stringify(error.details), /query/);
      return true;
    });
  });

  test("an id '.' or '..' reaches no other route (deleteMemory(u, '..') erased the user)", async () => {
    await mnemo.remember("dot", { content: "I like green tea." });
    for (const id of ["..", "."]) {
      await assert.rejects(mnemo.deleteMemory("dot", id),
        (error: unknown) => error instanceof MnemoError && error.code === "invalid_input");
      await assert.rejects(mnemo.getMemory("dot", id),
        (error: unknown) => error instanceof MnemoError && error.code === "invalid_input");
    }
    const left = await mnemo.listMemories("dot");
    assert.deepEqual(left.items.map((m) => m.content), ["I like green tea."]);
  });

  test("a wrong key is refused with the API's code", async () => {
    const stranger = new MnemoClient({ baseUrl: server.url, apiKey: "mk_wrong" });
    await assert.rejects(stranger.listMemories("ana"),
      (error: unknown) => error instanceof MnemoError && error.status === 401 && error.code === "unauthorized");
  });

  test("the user in control: forget, export, erase", async () => {
    await mnemo.remember("cy", { content: "I live in Porto." });
    await mnemo.remember("cy", { content: "I am vegetarian." });
    const forgotten = await mnemo.forget("cy", { query: "vegetarian" });
    assert.equal(forgotten.forgotten.length, 1);
    const exported = await mnemo.exportUser("cy");
    assert.ok(exported.memories.length >= 1);
    await mnemo.eraseUser("cy");
    const after = await mnemo.listMemories("cy");
    assert.equal(after.items.length, 0);
  });

  test("no server: an unreachable error after the retries", async () => {
    const nobody = new MnemoClient({ baseUrl: "http://127.0.0.1:9", retries: 1, backoffMs: 10 });
    await assert.rejects(nobody.health(),
      (error: unknown) => error instanceof MnemoError && error.status === 0 && error.code === "unreachable");
  });
});
