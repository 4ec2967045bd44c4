import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AppError } from "@/server/errors";
import { createPlacedTransform } from "@/server/image/isolation/placed-transform";
import type { Placement } from "@/server/image/isolation/placement";
import type { Transformer } from "@/server/image/transformer";
import type { JobPriority } from "@/server/image/transform-scheduler";
import { DEFAULT_TRANSFORM_LIMITS } from "@/server/image/settings";

/**
 * The route between the server's process and the transform processes: what the check says, except
 * that background jobs always go to the processes, and a source whose job here was given more than the
 * budget (or timed out) goes there from then on. Both sides here answer which one ran.
 */
function setup(
  placement: Placement,
  behaviour: { tookMs?: number; fails?: Error; gate?: Promise<unknown>; cores?: number } = {},
) {
  let clock = 0;
  const ran: string[] = [];
  const sweeps = { count: 0 };
  const side =
    (name: string): Transformer =>
    async (input) => {
      ran.push(`${name}:${Buffer.isBuffer(input) ? "bytes" : "file"}`);
      if (name === "here") {
        clock += behaviour.tookMs ?? 10;
        await behaviour.gate;
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
    beforeInProcess: () => void sweeps.count++,
    budgetMs: 1000,
    cores: behaviour.cores ?? 2,
    now: () => clock,
  });
  const run = (input: Buffer | { path: string } = Buffer.from("source"), priority?: JobPriority) =>
    placed.transform(input, {}, { accept: null }, DEFAULT_TRANSFORM_LIMITS, priority);
  return { placed, ran, sweeps, run, advance: (ms: number) => (clock += ms) };
}

describe("createPlacedTransform", () => {
  it("runs a job where the check places it, and counts each side by reason; only a job here nices this process's threads first", async () => {
    const here = setup({ where: "in-process" });
    await here.run();
    const away = setup({ where: "isolated", reason: "format" });
    await away.run();
    expect(here.ran).toEqual(["here:bytes"]);
    expect(away.ran).toEqual(["process:bytes"]);
    expect(here.placed.stats()).toEqual({ inProcess: 1, isolated: {} });
    expect(away.placed.stats()).toEqual({ inProcess: 0, isolated: { format: 1 } });
    expect([here.sweeps.count, away.sweeps.count]).toEqual([1, 0]);
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

  it("gives this process a file's bytes when they are in memory already, without reading the file", async () => {
    const bytes = Buffer.from("downloaded just now");
    let given: unknown;
    const placed = createPlacedTransform({
      inProcess: async (input) => {
        given = input;
        return {
          body: Buffer.from("out"),
          format: "webp",
          contentType: "image/webp",
          width: 1,
          height: 1,
          negotiated: false,
        };
      },
      isolated: () => Promise.reject(new Error("not placed there")),
      place: async () => ({ where: "in-process" }),
    });
    await placed.transform({ path: "/nonexistent/source", bytes }, {}, { accept: null }, DEFAULT_TRANSFORM_LIMITS);
    expect(given).toBe(bytes);
  });

  it("sends background jobs to the processes, where they run niced, and places a lone tenant's extra ones", async () => {
    const { ran, run, placed } = setup({ where: "in-process" });
    await run(Buffer.from("source"), "background");
    await run(Buffer.from("source"), "extra");
    expect(ran).toEqual(["process:bytes", "here:bytes"]);
    expect(placed.stats()).toEqual({ inProcess: 1, isolated: { background: 1 } });
  });

  it("charges jobs that ran beside more jobs than cores their share of the time, not the time that passed", async () => {
    // Four jobs on two cores for 1.8 s: each was given 0.9 s, within the budget.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { ran, run, placed, advance } = setup({ where: "in-process" }, { tookMs: 0, gate, cores: 2 });
    const sources = ["a", "b", "c", "d"].map((name) => Buffer.from(`source ${name}`));
    const running = sources.map((source) => run(source));
    await new Promise((resolve) => setImmediate(resolve));
    advance(1800);
    release();
    await Promise.all(running);
    await Promise.all(sources.map((source) => run(source)));
    expect(placed.stats()).toEqual({ inProcess: 8, isolated: {} });
    // Two on two cores for the same 1.8 s: each had a core to itself, and both go to the processes next time.
    let releaseTwo!: () => void;
    const gateTwo = new Promise<void>((resolve) => (releaseTwo = resolve));
    const two = setup({ where: "in-process" }, { tookMs: 0, gate: gateTwo, cores: 2 });
    const pair = sources.slice(0, 2).map((source) => two.run(source));
    await new Promise((resolve) => setImmediate(resolve));
    two.advance(1800);
    releaseTwo();
    await Promise.all(pair);
    await Promise.all(sources.slice(0, 2).map((source) => two.run(source)));
    expect(two.placed.stats()).toEqual({ inProcess: 2, isolated: { "overran before": 2 } });
    expect(ran).toHaveLength(8);
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
