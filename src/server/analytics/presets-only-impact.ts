import type { Database } from "@/server/db/client";
import { isSinglePreset } from "@/server/delivery/presets";
import { parseOperations } from "@/server/image";
import { servedImpact, type ServedImpact } from "./served-impact";

/**
 * What turning on "presets only" would refuse, judged on the request log: each distinct operations
 * segment of an image served is parsed as the image API parses it and checked with the same rule.
 * Only served images count: a refusal (a forged signature needs only the public key in every URL)
 * must not put numbers or text of a stranger's choosing in front of the admin.
 */
export function presetsOnlyImpact(db: Database, projectId: string, now = new Date()): Promise<ServedImpact> {
  return servedImpact(db, projectId, refusedWhenPresetsOnly, { now });
}

function refusedWhenPresetsOnly(segment: string): boolean {
  try {
    return !isSinglePreset(parseOperations(segment));
  } catch {
    return false;
  }
}
