import { PRESET_NAME } from "@/lib/schemas/preset";
import type { ImageOperations } from "../types";

/** One token of the operations segment: how it is spelled, documented and parsed. */
export interface OperationSpec {
  /** The token name, the part before the first `_`. */
  name: string;
  /** How it is written, for docs and error messages, e.g. `w_{1-8192}`. */
  syntax: string;
  description: string;
  /** `value` is what follows the first `_`, or undefined for a bare token. Throws InvalidValue. */
  parse(value: string | undefined): Partial<ImageOperations>;
}

/**
 * Thrown by value parsers; the caller turns it into INVALID_OPERATION naming the token and its syntax,
 * so each parser stays a one-liner and the public message is built in one place.
 */
export class InvalidValue extends Error {
  constructor() {
    super("invalid operation value");
    this.name = "InvalidValue";
  }
}

/** The contract's bound for w, h and s: also the largest output the URL can ask for. */
export const MAX_DIMENSION = 8192;

// Strict shapes: no signs, exponents, spaces or hex, so "1e3" or " 80" cannot slip through Number().
const INTEGER = /^[0-9]{1,8}$/;
const DECIMAL = /^[0-9]{1,4}(\.[0-9]{1,3})?$/;

export function integer(value: string | undefined, min: number, max: number): number {
  if (value === undefined || !INTEGER.test(value)) throw new InvalidValue();
  return inRange(Number(value), min, max);
}

export function decimal(value: string | undefined, min: number, max: number): number {
  if (value === undefined || !DECIMAL.test(value)) throw new InvalidValue();
  return inRange(Number(value), min, max);
}

function inRange(n: number, min: number, max: number): number {
  if (n < min || n > max) throw new InvalidValue();
  return n;
}

export function oneOf<T extends string>(value: string | undefined, options: readonly T[]): T {
  const found = options.find((option) => option === value);
  if (found === undefined) throw new InvalidValue();
  return found;
}

/** Bare flags take no value: `flip_true` is refused rather than silently read as `flip`. */
export function bare(value: string | undefined): true {
  if (value !== undefined) throw new InvalidValue();
  return true;
}

/** `{W}x{H}`, each 1–MAX_DIMENSION. */
export function box(value: string | undefined): { width: number; height: number } {
  const match = /^([0-9]+)x([0-9]+)$/.exec(value ?? "");
  if (!match) throw new InvalidValue();
  return { width: integer(match[1], 1, MAX_DIMENSION), height: integer(match[2], 1, MAX_DIMENSION) };
}

/** Lower-case letters, digits and dashes, starting with a letter or digit: safe in a URL and a log. */

export function presetName(value: string | undefined): string {
  if (value === undefined || !PRESET_NAME.test(value)) throw new InvalidValue();
  return value;
}

/** Largest padding on one side before dpr: four sides at dpr 4 still leave room for the image. */
export const MAX_PADDING = 256;

/** `{N}` on every side, or `{T}_{R}_{B}_{L}` as CSS writes it; each 0–MAX_PADDING. */
export function sides(value: string | undefined): { top: number; right: number; bottom: number; left: number } {
  const parts = (value ?? "").split("_");
  if (parts.length !== 1 && parts.length !== 4) throw new InvalidValue();
  const [top, right, bottom, left] = (parts.length === 1 ? [parts[0], parts[0], parts[0], parts[0]] : parts).map((p) =>
    integer(p, 0, MAX_PADDING),
  ) as [number, number, number, number];
  return { top, right, bottom, left };
}

/** `RRGGBB` (opaque) or `RRGGBBAA`, case-insensitive; alpha becomes 0–1 as sharp expects. */
export function hexColour(value: string | undefined): { r: number; g: number; b: number; alpha: number } {
  if (value === undefined || !/^([0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/.test(value)) throw new InvalidValue();
  const byte = (i: number) => parseInt(value.slice(i, i + 2), 16);
  const alpha = value.length === 8 ? Math.round((byte(6) / 255) * 1000) / 1000 : 1;
  return { r: byte(0), g: byte(2), b: byte(4), alpha };
}
