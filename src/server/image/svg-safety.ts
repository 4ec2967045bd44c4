import type { DOMPurify } from "dompurify";
import { AppError } from "@/server/errors";

/**
 * An SVG passed through is served from our origin: opened directly (not through <img>) it is a
 * document that can run script and load resources in our origin's name. It is served made safe
 * (contract §4), not refused: DOMPurify, in a jsdom window, keeps the SVG and SVG-filter vocabulary and
 * drops scripts, event handlers, foreignObject and script URLs; two hooks of ours drop every reference
 * that leaves the document (href/src to anything but `#fragment` or a data: raster, `url(…)` and
 * `@import` in attributes and style sheets), so a served SVG fetches nothing. The route also sends
 * `Content-Security-Policy: default-src 'none'` on SVG: a second layer, not the only one.
 * The HTML parser DOMPurify uses reads no DOCTYPE subset: entities are never expanded (no bomb, no
 * external entity), and the result is written back as XML.
 */
const SVG_NAMESPACE = "http://www.w3.org/2000/svg";
const LINK_ATTRIBUTES = new Set(["href", "xlink:href", "src"]);
/** Rasters an SVG may embed: decoded by the browser's image decoders, never as documents. */
const DATA_RASTER = /^data:image\/(png|jpeg|gif|webp|avif);/i;
const CSS_REFERENCE = /url\s*\(\s*(['"]?)([^'")]*)\1\s*\)|@import|image-set\s*\(|\\/gi;

interface Purifier {
  purify: DOMPurify;
  serialize(node: Node): string;
}

let purifier: Promise<Purifier> | null = null;

/** Loaded on the first SVG served as SVG: jsdom is large, and most transforms never need it. */
function loadPurifier(): Promise<Purifier> {
  purifier ??= (async () => {
    const [{ JSDOM }, { default: createDOMPurify }] = await Promise.all([import("jsdom"), import("dompurify")]);
    const { window } = new JSDOM("");
    const purify = createDOMPurify(window as unknown as Parameters<typeof createDOMPurify>[0]);
    purify.addHook("uponSanitizeElement", (node, data) => {
      if (data.tagName === "style" && !isInternalCss(node.textContent ?? "")) node.textContent = "";
    });
    purify.addHook("afterSanitizeAttributes", (node) => {
      for (const { name, value } of [...node.attributes]) {
        const leaves = LINK_ATTRIBUTES.has(name.toLowerCase()) ? !isInternalLink(value) : !isInternalCss(value);
        if (leaves) node.removeAttribute(name);
      }
    });
    const serializer = new window.XMLSerializer();
    return { purify, serialize: (node) => serializer.serializeToString(node) };
  })();
  return purifier;
}

function isInternalLink(value: string): boolean {
  const link = value.trim();
  return link.startsWith("#") || DATA_RASTER.test(link);
}

/** A CSS text (a style sheet, a style attribute, `fill="url(#g)"`) that refers only to this document. */
function isInternalCss(css: string): boolean {
  for (const match of css.matchAll(CSS_REFERENCE)) {
    const target = match[2];
    if (target === undefined || !target.trim().startsWith("#")) return false;
  }
  return true;
}

/** The SVG made safe to serve as a document; 415 when nothing of an SVG is left. */
export async function sanitiseSvg(svg: Buffer): Promise<Buffer> {
  const { purify, serialize } = await loadPurifier();
  const fragment = purify.sanitize(svg.toString("utf8"), {
    USE_PROFILES: { svg: true, svgFilters: true },
    RETURN_DOM_FRAGMENT: true,
  });
  const root = fragment.firstElementChild;
  if (!root || root.localName !== "svg" || root.namespaceURI !== SVG_NAMESPACE || fragment.childElementCount !== 1) {
    throw new AppError("UNSUPPORTED_IMAGE", { detail: "svg sanitiser left no single <svg> root" });
  }
  return Buffer.from(serialize(root), "utf8");
}
