/**
 * A real `mnemo serve` for the tests: one worker, a throwaway data directory, one tenant key.
 * The Python is $MNEMO_PYTHON (make ts-test passes the repo's .venv), else ../../.venv/bin/python.
 */
import { type ChildProcessByStdio, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";

export const KEY = "mk_typescript_test_key";

export interface RunningServer {
  url: string;
  stop(): Promise<void>;
}

export async function startServer(): Promise<RunningServer> {
  const python = process.env.MNEMO_PYTHON ?? path.resolve("../../.venv/bin/python");
  const dataDir = mkdtempSync(path.join(tmpdir(), "mnemo-ts-"));
  const child: ChildProcessByStdio<null, Readable, Readable> = spawn(
    python,
    ["-m", "mnemo.cli", "serve", "--port", "0", "--workers", "1", "--data-dir", dataDir],
    {
      env: {
        ...process.env,
        MNEMO_API_KEYS: `tenant_ts=${KEY}`,
        MNEMO_DEBOUNCE_QUIET_SECONDS: "1",
        MNEMO_WORKER_POLL_SECONDS: "0.1",
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let log = "";
  child.stderr.on("data", (chunk: Buffer) => {
    log += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`mnemo serve did not start in 120 s: ${log.slice(-2000)}`)), 120_000);
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /http:\/\/[\d.]+:\d+/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[0]);
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`mnemo serve exited (${code}): ${log.slice(-2000)}`));
    });
  });
  return {
    url,
    async stop() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

