import { accessSync, chmodSync, constants, existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { signUrl } from "@optstuff/client";
import type { CliContext } from "./context";
import { CliError } from "./errors";

/** A demo image the embedded default serves from demo/ (a project allowing `local`). */
const DEMO_SOURCE = "local/photo.jpg";
const DEMO_OPERATIONS = "w_640,q_75,f_webp";

export interface NewKey {
  projectSlug: string;
  key: { publicKey: string; secretKey: string };
  hosts: readonly string[];
  expiresAt: Date | null;
  /** After a rotation: the pair it replaces, and until when that one still verifies. */
  replaced?: { publicKey: string; worksUntil: Date };
}

/**
 * The four variables an integrator's server needs (the secret is shown once, here) and, when the project
 * serves `local/`, a signed demo URL; or, with a file, the variables written there (mode 0600) and only
 * a line about it on the terminal.
 */
export async function printCredentials(ctx: CliContext, created: NewKey, file?: string): Promise<void> {
  const baseUrl = ctx.baseUrl();
  const vars = {
    OPTSTUFF_BASE_URL: baseUrl,
    OPTSTUFF_PROJECT_SLUG: created.projectSlug,
    OPTSTUFF_PUBLIC_KEY: created.key.publicKey,
    OPTSTUFF_SECRET_KEY: created.key.secretKey,
  };
  const envBlock = Object.entries(vars)
    .map(([name, value]) => `${name}=${value}`)
    .join("\n");
  const demoUrl = created.hosts.includes("local")
    ? await signUrl({
        baseUrl,
        projectSlug: created.projectSlug,
        ...created.key,
        operations: DEMO_OPERATIONS,
        source: DEMO_SOURCE,
      })
    : null;
  if (file) {
    mkdirSync(path.dirname(path.resolve(file)), { recursive: true, mode: 0o700 });
    writeFileSync(file, `${envBlock}\n`, { mode: 0o600 });
    chmodSync(file, 0o600); // the mode above applies to a new file only
    ctx.out.result(
      { file, baseUrl, projectSlug: created.projectSlug, publicKey: created.key.publicKey },
      () => `Project "${created.projectSlug}" is ready; its credentials are in ${file} (mode 0600).`,
    );
    return;
  }
  const lines = [
    envBlock,
    "",
    "# The secret key is shown once: keep it on your server, never in browser code.",
    `# Expires: ${created.expiresAt ? created.expiresAt.toISOString() : "never"}`,
    ...(created.replaced
      ? [`# ${created.replaced.publicKey} keeps working until ${created.replaced.worksUntil.toISOString()}.`]
      : []),
    ...(demoUrl
      ? ["# A signed URL for a demo image:", demoUrl]
      : [`# Allowed source hosts: ${created.hosts.join(", ") || "(none: set them with optstuff sources set)"}`]),
  ];
  ctx.out.result(
    {
      baseUrl,
      projectSlug: created.projectSlug,
      publicKey: created.key.publicKey,
      secretKey: created.key.secretKey,
      expiresAt: created.expiresAt,
      ...(created.replaced && { replaced: created.replaced }),
      ...(demoUrl && { demoUrl }),
    },
    () => lines.join("\n"),
  );
}

/**
 * Checked before the key is made: a key whose secret could not be written anywhere would be lost. The
 * file may exist (it is replaced) or not, and its folders may be made yet (the first start's data
 * directory is): the nearest one that exists must be a writable folder.
 */
export function assertWritable(file: string): void {
  let nearest = path.resolve(file);
  while (!existsSync(nearest)) nearest = path.dirname(nearest);
  const writable = nearest === path.resolve(file) ? statSync(nearest).isFile() : statSync(nearest).isDirectory();
  try {
    if (!writable) throw new Error("not a folder");
    accessSync(nearest, constants.W_OK);
  } catch {
    throw new CliError(
      `Cannot write ${file}: ${nearest} is not a writable ${nearest === path.resolve(file) ? "file" : "folder"}`,
    );
  }
}
