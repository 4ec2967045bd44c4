import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseEnv } from "@/env";
import { commandAddress, recordedServerAddress, recordServerAddress } from "@/server/config/server-address";

const fresh = () => mkdtempSync(path.join(tmpdir(), "optstuff-server-address-"));
const since = new Date("2026-11-28T10:00:00Z");

describe("the server's address, written down for the commands beside it", () => {
  it("writes the public base URL the server works out of its settings, and nothing else lands in the folder", () => {
    const dataDir = path.join(fresh(), "data");
    const file = recordServerAddress(parseEnv({ OPTSTUFF_DATA_DIR: dataDir, PORT: "4820" }), since);
    expect(readdirSync(dataDir)).toEqual(["server.json"]);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
      publicBaseUrl: "http://127.0.0.1:4820",
      pid: process.pid,
      since: since.toISOString(),
    });
    recordServerAddress(
      parseEnv({ OPTSTUFF_DATA_DIR: dataDir, OPTSTUFF_PUBLIC_BASE_URL: "https://img.example.com/" }),
      since,
    );
    expect(recordedServerAddress(dataDir)?.publicBaseUrl).toBe("https://img.example.com");
  });

  it("reads nothing from a folder no server started on, or from a damaged file", () => {
    const dataDir = fresh();
    expect(recordedServerAddress(dataDir)).toBeNull();
    expect(recordedServerAddress(path.join(dataDir, "absent"))).toBeNull();
    for (const damaged of [
      "{",
      "[]",
      '{"publicBaseUrl":"file:///etc/passwd","pid":1,"since":"2026-11-28T10:00:00Z"}',
    ]) {
      writeFileSync(path.join(dataDir, "server.json"), damaged);
      expect(recordedServerAddress(dataDir), damaged).toBeNull();
    }
  });

  it("gives a command its own environment's address when that names it, else the server's, else the defaults'", () => {
    const dataDir = fresh();
    const e = parseEnv({ OPTSTUFF_DATA_DIR: dataDir, PORT: "4100" });
    expect(commandAddress(e, false)).toEqual({ baseUrl: "http://127.0.0.1:4100", from: "defaults" });
    recordServerAddress(parseEnv({ OPTSTUFF_DATA_DIR: dataDir, PORT: "4820" }), since);
    expect(commandAddress(parseEnv({ OPTSTUFF_DATA_DIR: dataDir }), false)).toEqual({
      baseUrl: "http://127.0.0.1:4820",
      from: "server",
    });
    expect(commandAddress(e, true)).toEqual({ baseUrl: "http://127.0.0.1:4100", from: "environment" });
  });
});
