import { effectTokens } from "./effect-tokens";
import { outputTokens } from "./output-tokens";
import { overlayTokens } from "./overlay-tokens";
import { resizeTokens } from "./resize-tokens";
import { textTokens } from "./text-tokens";
import type { OperationSpec } from "./value-parsers";

/**
 * The one table of operation tokens (split by group only to keep files short). Order here is the order
 * of the docs; it has no effect on processing, which runs in the pipeline's fixed order whatever the
 * order of tokens in the URL.
 */
export const operationRegistry = [
  ...resizeTokens,
  ...outputTokens,
  ...effectTokens,
  ...overlayTokens,
  ...textTokens,
] satisfies readonly OperationSpec[];

export type OperationName = (typeof operationRegistry)[number]["name"];

const byName: ReadonlyMap<string, OperationSpec> = new Map(operationRegistry.map((spec) => [spec.name, spec]));

export function findOperation(name: string): OperationSpec | undefined {
  return byName.get(name);
}
