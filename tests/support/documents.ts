import { readdirSync } from "node:fs";

/** Every Markdown page a reader reaches from the README: what the documentation tests read. */
export const DOCUMENTS = [
  "README.md",
  "packages/client/README.md",
  "examples/nextjs/README.md",
  ...readdirSync("docs")
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];
