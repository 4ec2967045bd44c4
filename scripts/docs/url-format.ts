/** The generated section of docs/url-format.md: the operations table, from operationRegistry. */
import { operationRegistry, type OperationSpec } from "@/server/image";
import { code, renderTable, replaceSections } from "./markdown";

type OperationDoc = Pick<OperationSpec, "name" | "syntax" | "description">;

export function renderOperationsTable(registry: readonly OperationDoc[]): string {
  return renderTable(
    "operationRegistry (src/server/image/operations)",
    ["token", "syntax", "effect"],
    registry.map((op) => [code(op.name), code(op.syntax), op.description]),
  );
}

/** The whole document with its generated section brought up to date. Pure: no file access. */
export function updateUrlFormatDoc(markdown: string): string {
  return replaceSections(markdown, { operations: renderOperationsTable(operationRegistry) });
}
