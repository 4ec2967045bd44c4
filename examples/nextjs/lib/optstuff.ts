import "server-only";
import type { SigningKeys } from "@optstuff/client";

/**
 * Server-side configuration, from the `.env` block OptStuff shows when a key is created. Only route
 * handlers and server components import this: the secret key never reaches the browser.
 */
export function optstuffKeys(): SigningKeys {
  return {
    baseUrl: required("OPTSTUFF_BASE_URL"),
    projectSlug: required("OPTSTUFF_PROJECT_SLUG"),
    publicKey: required("OPTSTUFF_PUBLIC_KEY"),
    secretKey: required("OPTSTUFF_SECRET_KEY"),
  };
}

/**
 * Where OptStuff can fetch this site's own files (public/): the site's public URL. Required in
 * production, where a loopback default would sign URLs OptStuff cannot fetch.
 */
export function siteUrl(): string {
  if (process.env.NODE_ENV === "production") return required("SITE_URL");
  return process.env.SITE_URL || "http://127.0.0.1:3001";
}

/** Other hosts whose images this site shows, comma separated (e.g. cdn.example.com). */
export function imageHosts(): string[] {
  return (process.env.IMAGE_HOSTS ?? "")
    .split(",")
    .map((host) => host.trim())
    .filter(Boolean);
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: copy the .env block of your OptStuff API key into .env.local`);
  return value;
}
