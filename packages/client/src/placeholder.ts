import { base64, signUrl, type SigningKeys } from "./sign.js";

export interface BlurPlaceholderInput extends SigningKeys {
  source: string;
  /** Default webp: the smallest data URL every current browser shows. */
  format?: "webp" | "png" | "jpeg";
  /** Injected for tests or runtimes with their own fetch. */
  fetch?: typeof fetch;
}

/**
 * A `data:` URL of the image's placeholder (the server's tiny blurred still, ≤ 32 px): for next/image's
 * `blurDataURL` or a CSS background while the real image loads. Server side: it signs with the secret.
 */
export async function blurDataUrl(input: BlurPlaceholderInput): Promise<string> {
  const format = input.format ?? "webp";
  const url = await signUrl({ ...input, operations: { placeholder: true, format } });
  const response = await (input.fetch ?? fetch)(url);
  if (!response.ok) throw new Error(`placeholder for ${input.source}: OptStuff answered ${response.status}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  return `data:${response.headers.get("content-type") ?? `image/${format}`};base64,${base64(bytes)}`;
}
