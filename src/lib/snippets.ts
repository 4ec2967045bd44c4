/**
 * What the dashboard shows developers: a `.env` block and code that signs URLs the way the contract
 * says. Pure strings, used by the pages and checked by a unit test that runs the Node snippet.
 */
export interface SnippetTarget {
  baseUrl: string;
  projectSlug: string;
  publicKey: string;
  /** Shown only at creation/rotation; elsewhere a placeholder. */
  secretKey?: string;
}

export function envBlock(target: SnippetTarget): string {
  return [
    `OPTSTUFF_BASE_URL=${target.baseUrl}`,
    `OPTSTUFF_PROJECT_SLUG=${target.projectSlug}`,
    `OPTSTUFF_PUBLIC_KEY=${target.publicKey}`,
    `OPTSTUFF_SECRET_KEY=${target.secretKey ?? "sk_… (shown once when the key was created)"}`,
  ].join("\n");
}

/** The signing function, in TypeScript for Next.js or plain JavaScript (an .mjs file) for Node. */
function signFunction(typed: boolean): string {
  const t = (annotation: string) => (typed ? annotation : "");
  return `import { createHmac } from "node:crypto";

// Signs /api/v1/{project}/{operations}/{source} as docs/url-format.md describes.
export function optstuffUrl(source${t(": string")}, operations = "_", expiresInSeconds${t("?: number")})${t(": string")} {
  const exp = expiresInSeconds ? Math.floor(Date.now() / 1000) + expiresInSeconds : undefined;
  const payload = exp === undefined ? \`\${operations}/\${source}\` : \`\${operations}/\${source}?exp=\${exp}\`;
  const sig = createHmac("sha256", process.env.OPTSTUFF_SECRET_KEY${t("!")}).update(payload).digest("base64url").slice(0, 32);
  // One slash after a scheme: Next.js would answer "https%3A//" with a redirect (docs/signing.md).
  const path = source.split("/").map(encodeURIComponent).join("/").replace(/^(https?%3A)\\/\\//i, "$1/");
  const query = new URLSearchParams({ key: process.env.OPTSTUFF_PUBLIC_KEY${t("!")}, sig });
  if (exp !== undefined) query.set("exp", String(exp));
  return \`\${process.env.OPTSTUFF_BASE_URL}/api/v1/\${process.env.OPTSTUFF_PROJECT_SLUG}/\${encodeURIComponent(operations)}/\${path}?\${query}\`;
}`;
}

/** A project's stored host entry (source-hosts.ts writes them canonical): `[scheme//][*.]host[:port]`. */
interface RemoteEntry {
  scheme: string | null;
  wildcard: boolean;
  /** With its port, if any. */
  host: string;
}

function remoteEntries(hosts: readonly string[]): RemoteEntry[] {
  return hosts
    .filter((entry) => entry !== "local" && entry !== "*")
    .map((entry) => {
      const [, scheme = null, wildcard, host = ""] = /^(?:(https?:)\/\/)?(\*\.)?(.*)$/i.exec(entry)!;
      return { scheme: scheme?.toLowerCase() ?? null, wildcard: wildcard !== undefined, host };
    });
}

/** A host the entry admits: itself, or a name under its wildcard. */
const hostOf = (entry: RemoteEntry) => `${entry.wildcard ? "images." : ""}${entry.host}`;

/**
 * The source the snippets sign, one the project's hosts admit: under its first exact host, else a name
 * under its first wildcard, else any public host (`*`), else its local folder. Null when it admits none.
 */
export function exampleSource(hosts: readonly string[]): string | null {
  const remote = remoteEntries(hosts);
  const entry = remote.find((e) => !e.wildcard) ?? remote[0];
  if (entry) return `${entry.scheme ? `${entry.scheme}//` : ""}${hostOf(entry)}/photo.jpg`;
  if (hosts.includes("*")) return "images.example.com/photo.jpg";
  if (hosts.includes("local")) return "local/photo.jpg";
  return null;
}

const NO_SOURCE_YET =
  "// The project allows no source yet: add a host in its settings (Allowed source hosts), then sign an image from it.";

/** The example call, or, with nothing allowed, what to do first (no URL the project would refuse). */
function exampleCall(hosts: readonly string[], indent: string, write: (call: string) => string): string {
  const source = exampleSource(hosts);
  if (source) return `${indent}${write(`optstuffUrl("${source}", "w_800,f_auto")`)}`;
  return `${indent}${NO_SOURCE_YET}\n${indent}${write('optstuffUrl("your-host.example/photo.jpg", "w_800,f_auto")')}`;
}

/** `hosts`: the project's allowed source hosts; the example signs one of them. */
export function nodeSnippet(hosts: readonly string[]): string {
  return `// optstuff.mjs: node --env-file=.env optstuff.mjs
${signFunction(false)}

${exampleCall(hosts, "", (call) => `console.log(${call});`)}`;
}

/** `hosts`: the project's allowed source hosts; the example signs one of them. */
export function nextjsSnippet(hosts: readonly string[]): string {
  return `// lib/optstuff.ts (server only: the secret never reaches the browser)
import "server-only";
${signFunction(true)}

// app/page.tsx: a server component signs, the browser only sees the URL.
import { optstuffUrl } from "@/lib/optstuff";

export default function Page() {
${exampleCall(hosts, "  ", (call) => `return <img src={${call}} width={800} alt="" />;`)}
}`;
}

/**
 * The kit's next/image setup: a loader that points at a signing route, and the route that signs with
 * the secret on the server and answers a cacheable redirect. `hosts` are the project's source hosts.
 */
export function nextImageSnippet(hosts: readonly string[]): string {
  // The kit takes exact hosts (`host` or `host:port`): the project's scheme prefixes go, and its
  // wildcards are named for the developer to replace with the hosts their pages use (one name under
  // the first stands in when there is no exact host). The kit signs remote images only.
  const remote = remoteEntries(hosts);
  const exact = remote.filter((e) => !e.wildcard);
  const wildcards = remote.filter((e) => e.wildcard);
  const listed = exact.length > 0 ? exact : wildcards.slice(0, 1);
  const allowed = listed.map(hostOf);
  const shown = hosts.includes("*") && listed.length === 0 ? "images.example.com" : allowed[0];
  const note =
    wildcards.length > 0
      ? `\n  // The project also allows ${wildcards.map((e) => `*.${e.host}`).join(", ")}: list the exact hosts your pages use.`
      : shown === undefined
        ? "\n  // The project allows no remote host yet: add one in its settings (Allowed source hosts) and list it here."
        : listed.length === 0
          ? "\n  // The project allows any public host: list the hosts your pages use."
          : "";
  const scheme = listed[0]?.scheme ?? "https:";
  const example =
    shown === undefined
      ? "// Then an <Image> whose src is on a host the project allows, once it allows one."
      : `// Then <Image src="${scheme}//${shown}/photo.jpg" width={800} height={600} alt="" />`;
  return `// @optstuff/client is not on the npm registry yet: pack it from a clone of the OptStuff repository
// (run npm ci in the clone once). In your app's folder, with the clone beside it as ../optstuff:
//   npm pack ../optstuff/packages/client
//   npm install ./optstuff-client-0.1.0.tgz

// next.config.ts
export default { images: { loader: "custom", loaderFile: "./image-loader.ts" } };

// image-loader.ts (runs in the browser too: it knows no secret, it only points at the route)
import { createImageLoader } from "@optstuff/client/next";
export default createImageLoader({ route: "/api/image" });

// app/api/image/route.ts (signs on the server, answers 302 to OptStuff)
import { createSigningRoute } from "@optstuff/client/next";
export const GET = createSigningRoute({
  baseUrl: process.env.OPTSTUFF_BASE_URL!,
  projectSlug: process.env.OPTSTUFF_PROJECT_SLUG!,
  publicKey: process.env.OPTSTUFF_PUBLIC_KEY!,
  secretKey: process.env.OPTSTUFF_SECRET_KEY!,
  allowedHosts: ${JSON.stringify(shown === "images.example.com" ? [shown] : allowed)},${note}
});

${example}`;
}
