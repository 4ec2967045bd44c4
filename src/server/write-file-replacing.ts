import { renameSync, rmSync, writeFileSync } from "node:fs";

/**
 * Writes `file` whole beside itself, then renames it into place: a reader at that moment sees the old
 * content or the new, never half of it, and two writers at once leave one of theirs, not a mix.
 */
export function writeFileReplacing(file: string, content: string | NodeJS.ArrayBufferView): void {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, content);
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
