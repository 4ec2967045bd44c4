import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AppError } from "@/server/errors";
import { createPlacedTransform } from "@/server/image/isolation/placed-transform";
import type { Placement } from "@/server/image/isolation/placement";
import type { Transformer } from "@/server/image/transformer";
import { DEFAULT_TRANSFORM_LIMITS } from "@/server/image/settings";

/**
 * The route between the server's process and the transform processes: what the check says, except
 * that a tenant's extra jobs always go to the processes, and a source whose job here ran past the
 * budget (or timed out) goes there from then on. Both sides here answer which one ran.
 */
function setup(placement: Placement, behaviour: { tookMs?: number; fails?: Error } = {}) {
  let clock = 0;
  const ran: string[] = [];
  const side =
    (name: string): Transformer =>
    async (input) => {
      ran.push(`${name}:${Buffer.isBuffer(input) ? "bytes" : "file"}`);
      if (name === "here") {
        clock += behaviour.tookMs ?? 10;
        if (behaviour.fails) throw behaviour.fails;
      }
      return {
        body: Buffer.from(name),
        format: "webp",
        contentType: "image/webp",
        width: 1,
        height: 1,
        negotiated: false,
      };
    };
  const placed = createPlacedTransform({
    inProcess: side("here"),
    isolated: side("process"),
    place: async () => placement,
    budgetMs: 1000,
    now: () => clock,
  });
  const run = (input: Buffer | { path: string } = Buffer.from("source"), priority?: "normal" | "background") =>
    placed.transform(input, {}, { accept: null }, DEFAULT_TRANSFORM_LIMITS, priority);
  return { placed, ran, run };
}

describe("createPlacedTransform", () => {
  it("runs a job where the check places it, and counts each side by reason", async () => {
    const here = setup({ where: "in-process" });
    await here.run();
    const away = setup({ where: "isolated", reason: "format" });
    await away.run();
    expect(here.ran).toEqual(["here:bytes"]);
    expect(away.ran).toEqual(["process:bytes"]);
    expect(here.placed.stats()).toEqual({ inProcess: 1, isolated: {} });
    expect(away.placed.stats()).toEqual({ inProcess: 0, isolated: { format: 1 } });
  });

  it("hands a transform process the file it was given, and this process the bytes read from it", async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "placed-")), "source");
    writeFileSync(file, "source bytes");
    const away = setup({ where: "isolated", reason: "format" });
    await away.run({ path: file });
    const here = setup({ where: "in-process" });
    await here.run({ path: file });
    expect([...away.ran, ...here.ran]).toEqual(["process:file", "here:bytes"]);
  });

  it("sends a tenant's extra jobs to the processes, where they run niced", async () => {
    const { ran, run, placed } = setup({ where: "in-process" });
    await run(Buffer.from("source"), "background");
    expect(ran).toEqual(["process:bytes"]);
    expect(placed.stats().isolated).toEqual({ background: 1 });
  });

  it("sends a source whose job here ran past the budget to the processes from then on, and only that source", async () => {
    const { ran, run, placed } = setup({ where: "in-process" }, { tookMs: 1500 });
    await run(Buffer.from("slow source"));
    await run(Buffer.from("slow source"));
    await run(Buffer.from("another source"));
    expect(ran).toEqual(["here:bytes", "process:bytes", "here:bytes"]);
    expect(placed.stats()).toEqual({ inProcess: 2, isolated: { "overran before": 1 } });
  });

  it("remembers a source whose job here timed out, and passes the error on", async () => {
    const timeout = new AppError("TRANSFORM_TIMEOUT", { detail: "timeout: 5 s" });
    const { ran, run } = setup({ where: "in-process" }, { fails: timeout });
    await expect(run()).rejects.toBe(timeout);
    await run();
    expect(ran).toEqual(["here:bytes", "process:bytes"]);
  });
});
