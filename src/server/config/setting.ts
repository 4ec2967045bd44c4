import { z } from "zod";

/**
 * One environment variable as the module that uses it declares it: how its text is parsed (bounds
 * included), its default, and one line for the operator. src/env.ts assembles the tables; .env.example
 * and the variables table of docs/self-hosting.md are generated from them (scripts/docs/settings.ts).
 */
export interface Setting<T> {
  /** Parses the variable's text; an unset or empty variable arrives as undefined. */
  readonly schema: z.ZodType<T>;
  /** The default when it is one constant (modules read it from here rather than typing it again). */
  readonly default?: T;
  /** The default in words, when it depends on the machine or the platform ("twice the cores"). */
  readonly defaultText?: string;
  readonly doc: string;
  /** Never written anywhere but the environment itself. */
  readonly secret?: boolean;
  /** Bounds of a number, and the words of a choice, as the documentation shows them. */
  readonly min?: number;
  readonly max?: number;
  readonly values?: readonly string[];
}

/** A section of settings, as .env.example and docs/self-hosting.md show them. */
export interface SettingGroup<S extends Record<string, Setting<unknown>>> {
  readonly title: string;
  readonly settings: S;
  /** Set by the platform (Vercel, Node), not by the operator: documented, left out of .env.example. */
  readonly platform?: boolean;
}

export type SettingValue<S> = S extends Setting<infer T> ? T : never;

/** The parsed values of a group's settings: what its module's derivations read (`Env` is all of them). */
export type ValuesOf<G extends SettingGroup<Record<string, Setting<unknown>>>> = {
  [Name in keyof G["settings"]]: SettingValue<G["settings"][Name]>;
};

/** A setting whose default is one constant. */
export type Defaulted<T> = Setting<T> & { readonly default: T };

export function group<S extends Record<string, Setting<unknown>>>(
  title: string,
  settings: S,
  options: { platform?: boolean } = {},
): SettingGroup<S> {
  return { title, settings, ...options };
}

interface Described {
  doc: string;
  defaultText?: string;
}

interface Bounds {
  min?: number;
  max?: number;
}

/** A whole number within bounds. */
export function integer(spec: Described & Bounds & { default: number }): Defaulted<number> {
  return { schema: bounded(z.coerce.number().int(), spec).default(spec.default), ...spec };
}

/** A whole number whose default is worked out on this machine (say how in defaultText). */
export function machineInteger(
  spec: Bounds & { doc: string; defaultText: string; default: () => number },
): Setting<number> {
  const { default: workedOut, ...rest } = spec;
  return { schema: bounded(z.coerce.number().int(), spec).default(workedOut), ...rest };
}

/** A whole number whose absence means something the code works out (usually from the platform). */
export function optionalInteger(spec: Described & Bounds): Setting<number | undefined> {
  return { schema: bounded(z.coerce.number().int(), spec).optional(), ...spec };
}

/** A number within bounds (a share, a rate). */
export function decimal(spec: Described & Bounds & { default: number }): Defaulted<number> {
  return { schema: bounded(z.coerce.number(), spec).default(spec.default), ...spec };
}

/** One of a few words. */
export function choice<const V extends string>(
  values: readonly [V, ...V[]],
  spec: Described & { default: NoInfer<V> },
): Defaulted<V> & { readonly values: readonly V[] } {
  return { schema: z.enum(values).default(spec.default) as z.ZodType<V>, values, ...spec };
}

/** On or off: `1`, `true`, `yes` mean on; anything else of the accepted words off. */
export function flag(spec: Described): Defaulted<boolean> {
  return {
    schema: z
      .enum(["1", "0", "true", "false", "yes", "no"])
      .optional()
      .transform((v) => v === "1" || v === "true" || v === "yes"),
    default: false,
    ...spec,
  };
}

/** Free text, trimmed; unset when absent. */
export function text(spec: Described & { secret?: boolean }): Setting<string | undefined> {
  return { schema: trimmed, ...spec };
}

/** Free text with a default. */
export function textWithDefault(spec: Described & { default: string }): Defaulted<string> {
  return { schema: z.string().default(spec.default), ...spec };
}

/** Text checked and shaped by a schema of the module's own (a header name, a list of domains). */
export function parsed<T>(
  schema: z.ZodType<T, string | undefined>,
  spec: Described & { secret?: boolean },
): Setting<T> {
  return { schema: trimmed.pipe(schema) as z.ZodType<T>, ...spec };
}

const trimmed = z
  .string()
  .optional()
  .transform((v) => (v && v.trim() !== "" ? v.trim() : undefined));

function bounded<N extends z.ZodNumber | z.ZodCoercedNumber>(schema: N, { min, max }: Bounds): N {
  const low = min === undefined ? schema : (schema.min(min) as N);
  return max === undefined ? low : (low.max(max) as N);
}
