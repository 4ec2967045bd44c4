import type { Attributes } from "@opentelemetry/api";

/**
 * Query parameters whose values never leave the process: the image URL's signature and key, and the
 * credentials of presigned sources. Next's own request span carries the URL (`http.target`).
 */
const SECRET_PARAMETERS =
  /([?&](?:sig|key|token|signature|x-amz-signature|x-amz-credential|x-amz-security-token)=)[^&#\s]*/gi;

export function redactText(value: string): string {
  return value.replace(SECRET_PARAMETERS, "$1[redacted]");
}

/** Rewrites, in place, every string attribute that carries a secret parameter. */
export function redactAttributes(attributes: Attributes): void {
  for (const [name, value] of Object.entries(attributes))
    if (typeof value === "string" && value !== redactText(value)) attributes[name] = redactText(value);
}
