import { describe, expect, it } from "vitest";
import { withDefaultQuality } from "@/server/delivery/default-quality";
import { parseOperations } from "@/server/image";

const eco = { defaultQuality: "eco" as const };
const apply = (segment: string, project: { defaultQuality: "eco" | null } = eco) =>
  withDefaultQuality(parseOperations(segment), project);

describe("the project's default quality mode", () => {
  it("gives q_auto at its level to a URL that names no quality", () => {
    expect(apply("w_400,f_webp")).toEqual({ width: 400, format: "webp", qualityTarget: "eco" });
    expect(apply("w_400,f_best")).toEqual({ width: 400, format: "best", qualityTarget: "eco" });
    expect(apply("_")).toEqual({ qualityTarget: "eco" });
  });

  it("leaves a URL's own q_, q_auto or maxbytes_ alone, and placeholders and info", () => {
    expect(apply("w_400,q_55")).toEqual({ width: 400, quality: 55, qualityTarget: undefined });
    expect(apply("q_auto:best")).toEqual({ qualityTarget: "best", quality: undefined });
    expect(apply("maxbytes_20000")).toEqual({ maxBytes: 20000 });
    expect(apply("w_20,placeholder")).toEqual({ width: 20, placeholder: true });
    expect(apply("info")).toEqual({ info: true });
    // info with operations describes what the same URL without info makes: with the default too.
    expect(apply("w_20,info")).toEqual({ width: 20, info: true, qualityTarget: "eco" });
  });

  it("changes nothing when the project keeps the formats' defaults", () => {
    expect(apply("w_400,f_webp", { defaultQuality: null })).toEqual({ width: 400, format: "webp" });
  });
});
