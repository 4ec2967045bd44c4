import { z } from "zod";
import { nameSchema, slugSchema } from "./names";

/**
 * Host entries as stored; the server's policy (private ranges, schemes) is checked by the domain. The
 * entry bound is on the list, so its message belongs to the field a form shows, not to an entry.
 */
const hostEntries = z
  .array(z.string())
  .max(100, "At most 100 hosts")
  .refine((hosts) => hosts.every((host) => host.length <= 300), "A host entry has at most 300 characters");

/** Host lists are edited one entry per line (commas accepted too). */
export const parseHostList = (text: string) =>
  text
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);
export const formatHostList = (hosts: readonly string[]) => hosts.join("\n");

const hostListText = z.string().transform(parseHostList).pipe(hostEntries);

export const projectSchema = z.object({
  name: nameSchema,
  slug: slugSchema,
  allowedSourceHosts: hostEntries,
  allowedRefererHosts: hostEntries,
});

/** The same fields as a form edits them: host lists as text, one entry per line. */
export const projectFormSchema = projectSchema.extend({
  allowedSourceHosts: hostListText,
  allowedRefererHosts: hostListText,
});
