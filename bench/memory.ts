/**
 * npm run bench:memory — resident memory of the signed route's server over 10,000 mixed requests
 * (fragmentation shows as RSS that keeps growing or does not come back when idle), with the allocator
 * setting `npm start` applies (MALLOC_ARENA_MAX=2), with glibc's default (8 arenas per core), and with the
 * embedded database's buffer pool at PGlite's default 128 MB instead of OptStuff's 16 MB, and with
 * jemalloc preloaded when Debian's libjemalloc2 is installed.
 *
 * The mix, fixed by the request's index: 35 % transforms of a new URL (2 MP JPEG, 1 MP PNG with alpha,
 * 10-frame GIF; WebP, JPEG, PNG or AVIF output at several sizes), 25 % repeats of a recent URL (result
 * cache hits, or a transform again once evicted), 15 % 304 revalidations, 15 % forged signatures, 10 %
 * sources the origin answers 404. Concurrency 8. RSS (VmRSS of the process tree) is sampled every 1,000
 * requests and after 10 s idle; peak is VmHWM. Every answer's status is checked against the mix.
 * Results: a table on stdout and artifacts/bench-memory.json. BENCH_REQUESTS changes the 10,000.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import { drive, fmt, percentile } from "./lib/load";
import { cpuMsOfTree, peakRssOfTree, rssOfTree } from "./lib/process-memory";
import { killAll, prepareOurApp, startOrigin, stop, type OurApp } from "./lib/servers";
import { makeSources, type Source } from "./lib/sources";

const TOTAL = Number(process.env.BENCH_REQUESTS ?? 10_000);
const CONCURRENCY = 8;
const SAMPLE_EVERY = Math.max(1, Math.round(TOTAL / 10));
const IDLE_MS = 10_000;
const OPERATIONS = [
  "w_400,f_webp",
  "w_640,q_70,f_jpeg",
  "s_200x200,f_png",
  "w_320,f_avif",
  "w_800,f_webp",
  "placeholder",
];
const MB = 1024 * 1024;

/** Debian's libjemalloc2: measured as an alternative allocator when installed (apt-get install libjemalloc2). */
const JEMALLOC = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2";

const VARIANTS: { name: string; env: Record<string, string | undefined> }[] = [
  { name: "MALLOC_ARENA_MAX=2 (npm start)", env: {} },
  { name: "glibc default arenas", env: { MALLOC_ARENA_MAX: undefined } },
  // The embedded database's buffer pool at PGlite's own default, against the 16 MB OptStuff sets.
  { name: "PGlite pool 128 MB (its default)", env: { OPTSTUFF_EMBEDDED_SHARED_BUFFERS_MB: "128" } },
  // jemalloc for the server and its transform processes (they inherit the environment).
  ...(existsSync(JEMALLOC)
    ? [{ name: "jemalloc (LD_PRELOAD)", env: { LD_PRELOAD: JEMALLOC, MALLOC_ARENA_MAX: undefined } }]
    : []),
];

/** Smaller sources than bench:image, so 3,500 transforms take about a minute. */
async function mixSources(): Promise<Source[]> {
  const [jpeg, png, gif] = await makeSources();
  return [
    {
      ...jpeg!,
      width: 1600,
      height: 1200,
      body: await sharp(jpeg!.body).resize(1600).jpeg({ quality: 88 }).toBuffer(),
      description: "1600×1200 JPEG",
    },
    {
      ...png!,
      width: 1200,
      height: 938,
      body: await sharp(png!.body).resize(1200).png().toBuffer(),
      description: "1200×938 RGBA PNG",
    },
    {
      ...gif!,
      width: 320,
      height: 240,
      frames: 10,
      body: await sharp(gif!.body, { animated: true, pages: 10 }).resize(320).gif().toBuffer(),
      description: "320×240 GIF, 10 frames",
    },
  ];
}

type Kind = "transform" | "repeat" | "revalidate" | "forged" | "missing";
function kindOf(i: number): Kind {
  const slot = (i * 37) % 100; // spreads the kinds evenly over the run
  return slot < 35 ? "transform" : slot < 60 ? "repeat" : slot < 75 ? "revalidate" : slot < 90 ? "forged" : "missing";
}

interface VariantResult {
  name: string;
  samples: { requests: number; rssMb: number }[];
  idleRssMb: number;
  peakRssMb: number;
  rps: number;
  p95: number;
  cpuMsPerRequest: number;
  statuses: Record<string, number>;
}

async function runVariant(
  app: OurApp,
  sources: Source[],
  originHost: string,
  variant: (typeof VARIANTS)[number],
): Promise<VariantResult> {
  const child = await app.start(variant.env);
  const recent: { url: string; etag: string }[] = [];
  const statuses: Record<string, number> = {};
  const samples: VariantResult["samples"] = [{ requests: 0, rssMb: rssOfTree(child.pid!) / MB }];
  let done = 0;
  const expect = async (response: Response, allowed: number[], what: string) => {
    await response.arrayBuffer();
    statuses[response.status] = (statuses[response.status] ?? 0) + 1;
    if (!allowed.includes(response.status)) throw new Error(`${what}: status ${response.status}`);
  };
  const request = async (i: number) => {
    // Repeats and revalidations need some served URLs first.
    const kind: Kind = recent.length < 20 ? "transform" : kindOf(i);
    const source = sources[i % sources.length]!;
    const src = `http://${originHost}/src/${source.kind}/${variant.name.length}-${i}.${source.ext}`;
    const ops = OPERATIONS[Math.floor(i / 3) % OPERATIONS.length]!;
    if (kind === "transform") {
      const url = await app.signed(ops, src);
      const response = await fetch(url);
      await expect(response, [200], `transform ${ops} ${source.kind}`);
      recent.push({ url, etag: response.headers.get("etag")! });
      if (recent.length > 200) recent.shift();
    } else if (kind === "repeat") {
      await expect(await fetch(recent[i % recent.length]!.url), [200], "repeat");
    } else if (kind === "revalidate") {
      const known = recent[i % recent.length]!;
      await expect(await fetch(known.url, { headers: { "If-None-Match": known.etag } }), [304], "revalidate");
    } else if (kind === "forged") {
      await expect(await fetch((await app.signed(ops, src)).replace(/sig=[\w-]{4}/, "sig=AAAA")), [401, 403], "forged");
    } else {
      await expect(await fetch(await app.signed(ops, `http://${originHost}/missing/${i}.jpg`)), [404], "missing");
    }
    if (++done % SAMPLE_EVERY === 0) samples.push({ requests: done, rssMb: rssOfTree(child.pid!) / MB });
  };
  const cpuBefore = cpuMsOfTree(child.pid!);
  const run = await drive(TOTAL, CONCURRENCY, request);
  const cpuMs = cpuMsOfTree(child.pid!) - cpuBefore;
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const result: VariantResult = {
    name: variant.name,
    samples,
    idleRssMb: rssOfTree(child.pid!) / MB,
    peakRssMb: peakRssOfTree(child.pid!) / MB,
    rps: TOTAL / (run.wallMs / 1000),
    p95: percentile(run.latencies, 95),
    cpuMsPerRequest: cpuMs / TOTAL,
    statuses,
  };
  await stop(child);
  return result;
}

async function main(): Promise<void> {
  const work = mkdtempSync(path.join(tmpdir(), "optstuff-bench-memory-"));
  const sources = await mixSources();
  const origin = await startOrigin(sources);
  // Forged signatures are 15 % of the mix: the per-address failure guard would shut the load generator
  // out after 60 of them a minute, so it is raised (it still counts every failure).
  const app = await prepareOurApp(work, origin.host, { OPTSTUFF_AUTH_FAILURES_PER_MINUTE: "1000000" });
  const results: VariantResult[] = [];
  try {
    for (const variant of VARIANTS) {
      results.push(await runVariant(app, sources, origin.host, variant));
      const r = results.at(-1)!;
      console.log(
        `${r.name}: RSS ${r.samples.map((s) => fmt(s.rssMb, 0)).join(" → ")} MB; idle ${fmt(r.idleRssMb, 0)} MB; peak ${fmt(r.peakRssMb, 0)} MB; ${fmt(r.rps, 1)} req/s; statuses ${JSON.stringify(r.statuses)}`,
      );
    }
  } finally {
    origin.server.close();
    rmSync(work, { recursive: true, force: true });
  }
  console.log(
    `\n${TOTAL} mixed requests at concurrency ${CONCURRENCY} (${sources.map((s) => s.description).join(", ")}):\n`,
  );
  console.log(
    `| allocator | RSS at start | after ${TOTAL / 2} | after ${TOTAL} | after ${IDLE_MS / 1000} s idle | peak | req/s | p95 ms | CPU ms/req |`,
  );
  console.log("|---|---|---|---|---|---|---|---|---|");
  for (const r of results) {
    const at = (n: number) => fmt(r.samples.find((s) => s.requests >= n)?.rssMb ?? NaN, 0);
    console.log(
      `| ${r.name} | ${at(0)} MB | ${at(TOTAL / 2)} MB | ${at(TOTAL)} MB | ${fmt(r.idleRssMb, 0)} MB | ${fmt(r.peakRssMb, 0)} MB | ${fmt(r.rps, 1)} | ${fmt(r.p95, 0)} | ${fmt(r.cpuMsPerRequest, 1)} |`,
    );
  }
  mkdirSync("artifacts", { recursive: true });
  writeFileSync(
    "artifacts/bench-memory.json",
    JSON.stringify(
      { date: new Date().toISOString(), total: TOTAL, concurrency: CONCURRENCY, operations: OPERATIONS, results },
      null,
      2,
    ),
  );
  console.log("\nartifacts/bench-memory.json");
}

main().catch((error: unknown) => {
  console.error(error);
  killAll();
  process.exit(1);
});
