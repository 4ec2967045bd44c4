import { AppError } from "@/server/errors";
import { facesWanted } from "../faces/subject-crop";
import type { ImageOperations } from "../types";
import { findOperation } from "./registry";
import { TEXT_DEFAULTS } from "./text-tokens";
import { InvalidValue } from "./value-parsers";

/** More tokens than there are distinct operations can only be an attack or a bug; stop early. */
const MAX_TOKENS = 64;
/** Tokens are echoed in the public error; keep the echo short. */
const MAX_ECHO = 64;

/**
 * Parses the operations segment (contract §1, §3): comma-separated `name_value` tokens or bare flags,
 * `_` for none. Repeated tokens: the last wins, field by field (`s_300x200,w_100` → 100×200).
 */
export function parseOperations(segment: string): ImageOperations {
  if (segment === "_") return {};
  if (segment === "") throw new AppError("BAD_REQUEST", { message: "Empty operations segment (use _ for none)" });
  const tokens = segment.split(",");
  if (tokens.length > MAX_TOKENS) {
    throw new AppError("INVALID_OPERATION", { message: `Too many operations (at most ${MAX_TOKENS})` });
  }

  const operations: ImageOperations = {};
  for (const token of tokens) Object.assign(operations, parseToken(token));
  checkCombination(operations);
  return dropDefaults(operations);
}

/** pixelate_, the watermark and a caption redraw the pixels from a copy that carries no metadata and no profile. */
export const KEEP_REDRAWN =
  "meta_keep and cs_keep cannot be combined with pixelate_, a watermark or txt_: they redraw the pixels, and the metadata or colour profile would be lost";

/** meta_keep or cs_keep: the output is encoded from the pipeline that decodes the source. */
export const keepsFromSource = (operations: ImageOperations): boolean =>
  operations.metadata === "keep" || operations.colourSpace === "keep";

/**
 * Pairs whose meaning would be ambiguous: libvips trims before it crops, so c_ would count from an
 * edge nobody can see in the URL. Refused before the source is fetched.
 */
export function checkCombination(operations: ImageOperations): void {
  if (operations.info && operations.placeholder) {
    throw new AppError("INVALID_OPERATION", {
      message: "info and placeholder cannot be combined: info already carries ThumbHash and BlurHash",
    });
  }
  if (operations.qualityTarget && operations.maxBytes !== undefined) {
    throw new AppError("INVALID_OPERATION", {
      message: "q_auto and maxbytes_ cannot be combined: ask for a look, or for a size",
    });
  }
  if (operations.format === "best" && (operations.quality !== undefined || operations.maxBytes !== undefined)) {
    throw new AppError("INVALID_OPERATION", {
      message: "f_best chooses by a perceptual level: use q_auto or q_auto:{level} with it, not q_{1-100} or maxbytes_",
    });
  }
  // A URL may restyle its preset's caption: the check runs again once the preset is expanded.
  if (operations.textStyle && operations.text === undefined && operations.preset === undefined) {
    throw new AppError("INVALID_OPERATION", { message: "txtstyle_ styles a caption: add txt_ with the text" });
  }
  if (operations.text !== undefined && operations.placeholder) {
    throw new AppError("INVALID_OPERATION", {
      message: "txt_ and placeholder cannot be combined: a placeholder is a blur, a caption would not read",
    });
  }
  if (
    keepsFromSource(operations) &&
    (operations.pixelate !== undefined || operations.watermark || operations.text !== undefined)
  ) {
    throw new AppError("INVALID_OPERATION", { message: KEEP_REDRAWN });
  }
  if (operations.metadata === "keep" && operations.placeholder) {
    throw new AppError("INVALID_OPERATION", {
      message:
        "meta_keep and placeholder cannot be combined: a placeholder is a few hundred bytes, metadata would be most of it",
    });
  }
  if (operations.colourSpace === "keep" && operations.placeholder) {
    throw new AppError("INVALID_OPERATION", {
      message: "cs_keep and placeholder cannot be combined: a placeholder is a blur, a profile would be most of it",
    });
  }
  if (operations.trim !== undefined && operations.crop) {
    throw new AppError("INVALID_OPERATION", {
      message: "trim and c_ cannot be combined: crop a region, or trim its borders",
    });
  }
  // Faces and the focal point are found in the source as it is; libvips trims before it crops.
  if (operations.trim !== undefined && (operations.focus || facesWanted(operations))) {
    throw new AppError("INVALID_OPERATION", {
      message: "trim cannot be combined with fp_, g_face or g_auto: they choose a region of the untrimmed image",
    });
  }
}

/**
 * `info` alone: the source's own facts, with no output to describe, no quality, no watermark. g_face or
 * g_auto beside it only adds the faces found: they make nothing to describe either.
 */
export function describesSourceOnly(operations: ImageOperations): boolean {
  const { info, gravity, ...rest } = operations;
  const others = Object.values(rest).filter((value) => value !== undefined).length;
  return info === true && others === 0 && (gravity === undefined || facesWanted(operations));
}

/** The token names of a segment that parseOperations accepted (`w_800,pr_hero` → w, pr), each once. */
export function operationNames(segment: string): string[] {
  return segment === "_" ? [] : [...new Set(segment.split(",").map((token) => splitToken(token).name))];
}

function splitToken(token: string): { name: string; value: string | undefined } {
  const separator = token.indexOf("_");
  return separator === -1
    ? { name: token, value: undefined }
    : { name: token.slice(0, separator), value: token.slice(separator + 1) };
}

function parseToken(token: string): Partial<ImageOperations> {
  if (token === "") throw new AppError("INVALID_OPERATION", { message: "Empty operation between commas" });
  const { name, value } = splitToken(token);

  const spec = findOperation(name);
  if (!spec) {
    throw new AppError("UNKNOWN_OPERATION", { message: `Unknown operation "${echo(token)}"` });
  }
  try {
    return spec.parse(value);
  } catch (error) {
    if (!(error instanceof InvalidValue)) throw error;
    throw new AppError("INVALID_OPERATION", {
      message: `Invalid operation "${echo(token)}": expected ${spec.syntax}`,
      cause: error,
    });
  }
}

function echo(token: string): string {
  return token.length > MAX_ECHO ? `${token.slice(0, MAX_ECHO)}…` : token;
}

/**
 * Values equal to the default are removed, so `r_0` or `anim_true` produce the same canonical string
 * (hence the same ETag and cache entry) as leaving them out. Done after merging so that a later
 * default still overrides an earlier token (`r_90,r_0` means no rotation).
 */
function dropDefaults(operations: ImageOperations): ImageOperations {
  const result = { ...operations };
  if (result.rotate === 0) delete result.rotate;
  if (result.dpr === 1) delete result.dpr;
  if (result.animated === true) delete result.animated;
  if (result.brightness === 1) delete result.brightness;
  if (result.saturation === 1) delete result.saturation;
  if (result.hue === 0) delete result.hue;
  if (result.padding && Object.values(result.padding).every((side) => side === 0)) delete result.padding;
  return result;
}

/**
 * A deterministic text for the operations' effect: keys sorted at every depth, so token order and
 * spelling (`w_800,h_400` vs `s_800x400`) do not matter. Used in ETags and result-cache keys.
 */
export function canonicalOperations(operations: ImageOperations): string {
  // The caption's style in full, so `txt_X` and `txt_X,txtstyle_32` share a variant. It is filled here,
  // not when parsing, so that a URL's txt_ over a preset's keeps the preset's style.
  const { text, textStyle } = operations;
  const effect = text === undefined ? operations : { ...operations, textStyle: { ...TEXT_DEFAULTS, ...textStyle } };
  return JSON.stringify(sortKeys(effect));
}

function sortKeys(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => [k, sortKeys(v)] as const);
  return Object.fromEntries(entries);
}
