import { createHash } from "node:crypto";
import type { TransformResult } from "@/server/image";
import type { StoredMeta } from "./types";

export function metaOf(result: TransformResult): StoredMeta {
  return {
    contentType: result.contentType,
    format: result.format,
    width: result.width,
    height: result.height,
    negotiated: result.negotiated,
    ...(result.measured ? { measured: result.measured } : {}),
    length: result.body.length,
    sha256: sha256(result.body),
  };
}

export function sha256(body: Buffer): string {
  return createHash("sha256").update(body).digest("base64url");
}

/**
 * The result when `body` is exactly what `meta` describes, else null: a truncated write, a flipped
 * bit or a half-replaced object must cost a transform, never a broken image with a long cache life.
 */
export function verified(meta: StoredMeta, body: Buffer): TransformResult | null {
  if (body.length !== meta.length || sha256(body) !== meta.sha256) return null;
  return {
    body,
    contentType: meta.contentType,
    format: meta.format,
    width: meta.width,
    height: meta.height,
    negotiated: meta.negotiated,
    ...(meta.measured ? { measured: meta.measured } : {}),
  };
}

const MAGIC = Buffer.from("OPTSTUFF-RESULT-1\n");

/** One file per result: magic, header length (4 bytes), JSON header, body. */
export function encodeFile(result: TransformResult): Buffer {
  const header = Buffer.from(JSON.stringify(metaOf(result)));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(header.length);
  return Buffer.concat([MAGIC, length, header, result.body]);
}

export function decodeFile(file: Buffer): TransformResult | null {
  if (file.length < MAGIC.length + 4 || !file.subarray(0, MAGIC.length).equals(MAGIC)) return null;
  const headerLength = file.readUInt32BE(MAGIC.length);
  const start = MAGIC.length + 4;
  if (start + headerLength > file.length) return null;
  let meta: StoredMeta;
  try {
    meta = JSON.parse(file.subarray(start, start + headerLength).toString("utf8")) as StoredMeta;
  } catch {
    return null;
  }
  return verified(meta, file.subarray(start + headerLength));
}
