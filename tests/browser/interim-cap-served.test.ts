import { readFileSync } from "node:fs";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { serveLocalSources } from "../support/served-local-sources";
import { wire } from "../support/wire";

/**
 * An interim answer (q_auto's first request) larger than the deployment's response cap, on a server
 * with no result store to redirect to: what the client gets from the built app, under `npm start` and
 * under `next start` (Next's own server).
 */
const CAP = 100_000;

describe.each(["npm start", "next start"] as const)(
  "an interim answer over the response cap, without a store (%s)",
  (server) => {
    const served = serveLocalSources(
      () => ({ "photo.jpg": readFileSync("demo/photo.jpg") }),
      { OPTSTUFF_RESPONSE_MAX_BYTES: String(CAP), OPTSTUFF_RESULT_STORE: "none" },
      server,
    );

    it("is refused with 413 in words, and the searched answer, which fits, is made and served after", async () => {
      const target = served.signed("w_1600,f_jpg,q_auto:low", "local/photo.jpg");
      const first = await wire(target);
      expect(first.status).toBe(413);
      expect(first.headers["cache-control"]).toBe("no-store");
      const refusal = JSON.parse(first.body.toString()) as { code: string; requestId: string };
      expect(refusal.code).toBe("OUTPUT_TOO_LARGE");
      expect(refusal.requestId).toBe(first.headers["x-request-id"]);
      let searched = first;
      for (let tries = 0; tries < 300 && searched.status !== 200; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        searched = await wire(target);
      }
      expect(searched.status).toBe(200);
      expect(searched.headers["cache-control"]).toContain("immutable");
      expect(searched.headers["x-optstuff-quality"]).toMatch(/^\d{1,3}; score=\d+\.\d$/);
      expect(searched.body.length).toBeLessThanOrEqual(CAP);
      expect(Number(searched.headers["content-length"])).toBe(searched.body.length);
      const meta = await sharp(searched.body).metadata();
      expect({ format: meta.format, width: meta.width }).toEqual({ format: "jpeg", width: 1600 });
    });
  },
);
