/**
 * The committed types are what openapi-typescript makes of the committed document, with the flags
 * of `npm run generate`. (That openapi.json is the server's current document is checked on the
 * Python side: tests/integration/test_typescript_client.py.)
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";

test("src/schema.ts is generated from openapi.json as it stands", () => {
  const scripts = (JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> }).scripts;
  const [tool, ...args] = (scripts.generate ?? "").split(/\s+/);
  assert.equal(tool, "openapi-typescript");
  const folder = mkdtempSync(path.join(tmpdir(), "mnemo-ts-gen-"));
  try {
    const out = path.join(folder, "schema.ts");
    const run = spawnSync(path.resolve("node_modules/.bin/openapi-typescript"),
      args.map((arg) => (arg === "src/schema.ts" ? out : arg)), { encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(readFileSync("src/schema.ts", "utf8"), readFileSync(out, "utf8"),
      "src/schema.ts is stale: run `make ts-client`");
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
