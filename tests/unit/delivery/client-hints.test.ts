import { describe, expect, it } from "vitest";
import { parseOperations } from "@/server/image";
import { applyClientHints } from "@/server/delivery/client-hints";

const hinted = (segment: string, headers: Record<string, string>) =>
  applyClientHints(parseOperations(segment), new Headers(headers));

describe("client hints", () => {
  it("are ignored, and vary nothing, unless the URL opts in", () => {
    const { operations, hints } = hinted("w_300,q_70", { "sec-ch-width": "900", "sec-ch-dpr": "2", "save-data": "on" });
    expect(operations).toEqual({ width: 300, quality: 70 });
    expect(hints).toEqual([]);
  });

  it("Save-Data asks q_auto for the next level down, never a fixed quality", () => {
    expect(hinted("w_auto,q_auto", { "save-data": "on" }).operations).toEqual({ qualityTarget: "eco" });
    expect(hinted("w_auto,q_auto:low", { "save-data": "on" }).operations).toEqual({ qualityTarget: "low" });
    // f_best is at q_auto's level (good unless named): Save-Data asks it for the next one down too.
    expect(hinted("w_auto,f_best", { "save-data": "on" }).operations).toEqual({ format: "best", qualityTarget: "eco" });
    expect(hinted("w_auto,q_auto:best", {}).operations).toEqual({ qualityTarget: "best" });
  });

  it("w_auto takes Sec-CH-Width rounded up to a step, else the fallback, else no width", () => {
    expect(hinted("w_auto", { "sec-ch-width": "500" }).operations).toEqual({ width: 640 });
    expect(hinted("w_auto_300", { "sec-ch-width": "640" }).operations).toEqual({ width: 640 });
    expect(hinted("w_auto_300", { "sec-ch-width": "99999" }).operations).toEqual({ width: 8192 });
    expect(hinted("w_auto_300", {}).operations).toEqual({ width: 300 });
    expect(hinted("w_auto", {}).operations).toEqual({});
    expect(hinted("w_auto", {}).hints).toEqual(["Sec-CH-Width", "Save-Data"]);
  });

  it("reads malformed or hostile hint values as no hint", () => {
    for (const value of ["", "abc", "-5", "0", "1e9", "12,13", "5 00", "0x10"]) {
      expect(hinted("w_auto_300", { "sec-ch-width": value }).operations, value).toEqual({ width: 300 });
      expect(hinted("w_100,dpr_auto", { "sec-ch-dpr": value }).operations, value).toEqual({ width: 100 });
    }
  });

  it("dpr_auto takes Sec-CH-DPR rounded up to a step; with w_auto the device width is divided by it once", () => {
    expect(hinted("w_100,dpr_auto", { "sec-ch-dpr": "1.75" }).operations).toEqual({ width: 100, dpr: 2 });
    expect(hinted("w_100,dpr_auto", { "sec-ch-dpr": "0.8" }).operations).toEqual({ width: 100 });
    expect(hinted("w_100,dpr_auto", { "sec-ch-dpr": "7" }).operations).toEqual({ width: 100, dpr: 4 });
    // 800 device px at DPR 2: 400 CSS px, which the resize multiplies back to 800.
    const both = hinted("w_auto,dpr_auto", { "sec-ch-width": "800", "sec-ch-dpr": "2" });
    expect(both.operations).toEqual({ width: 414, dpr: 2 });
    expect(both.hints).toEqual(["Sec-CH-DPR", "Sec-CH-Width", "Save-Data"]);
  });

  it("Save-Data: on lowers the quality where the URL opted in", () => {
    expect(hinted("w_auto,q_80", { "save-data": "on" }).operations).toMatchObject({ quality: 48 });
    expect(hinted("w_auto,f_auto", { "save-data": "on" }).operations).toMatchObject({ quality: 48 });
    expect(hinted("w_auto,f_avif", { "save-data": "on" }).operations).toMatchObject({ quality: 30 });
    expect(hinted("w_auto,q_80", { "save-data": "off" }).operations).toMatchObject({ quality: 80 });
  });

  it("a later w_ or s_ replaces w_auto, a later dpr_ replaces dpr_auto", () => {
    expect(hinted("w_auto,w_200", { "sec-ch-width": "900" })).toEqual({ operations: { width: 200 }, hints: [] });
    expect(hinted("w_auto,s_200x100", { "sec-ch-width": "900" })).toEqual({
      operations: { width: 200, height: 100 },
      hints: [],
    });
    expect(hinted("dpr_auto,dpr_2,w_10", { "sec-ch-dpr": "3" })).toEqual({
      operations: { width: 10, dpr: 2 },
      hints: [],
    });
  });
});
