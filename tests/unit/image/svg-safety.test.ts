import { JSDOM } from "jsdom";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { sanitiseSvg } from "@/server/image/svg-safety";

const svg = (body: string, head = "") =>
  Buffer.from(
    `<?xml version="1.0"?>${head}<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="20" height="20">${body}</svg>`,
  );

/** The served document as an XML parser (a browser opening it) reads it. */
function parse(served: Buffer): Document {
  const { window } = new JSDOM(served.toString("utf8"), { contentType: "image/svg+xml" });
  return window.document;
}

/** Every reference in the document that is not to itself. */
function outwardReferences(document: Document): string[] {
  const found: string[] = [];
  for (const element of document.querySelectorAll("*")) {
    for (const { name, value } of element.attributes) {
      if (/^on/i.test(name)) found.push(`${name}=${value}`);
      if (/(^|:)(href|src)$/i.test(name) && !value.startsWith("#") && !value.startsWith("data:image/png"))
        found.push(`${name}=${value}`);
      if (/url\(\s*['"]?(?!#)/i.test(value)) found.push(`${name}=${value}`);
    }
  }
  for (const style of document.querySelectorAll("style"))
    if (/url\(\s*['"]?(?!#)|@import/i.test(style.textContent ?? "")) found.push(`style ${style.textContent}`);
  return found;
}

const rasterise = async (file: Buffer) => (await sharp(file).png().raw().toBuffer({ resolveWithObject: true })).data;

describe("sanitiseSvg", () => {
  it("keeps a plain drawing as it renders, as well-formed XML in the SVG namespace", async () => {
    const file = svg(
      '<defs><linearGradient id="g"><stop offset="0" stop-color="#f00"/><stop offset="1" stop-color="#00f"/></linearGradient>' +
        '<style>.a{fill:url(#g)}</style></defs><rect class="a" width="20" height="10"/><circle cx="10" cy="15" r="4" fill="#0a0"/>' +
        '<use href="#g"/><text x="1" y="19">a\u00a0b &amp; c</text>',
    );
    const served = await sanitiseSvg(file);
    const document = parse(served);
    expect(document.documentElement.namespaceURI).toBe("http://www.w3.org/2000/svg");
    expect(document.querySelector("parsererror")).toBeNull();
    expect((await rasterise(served)).equals(await rasterise(file))).toBe(true);
  });

  it.each([
    ["script element", "<script>alert(1)</script>"],
    ["namespaced script", '<x:script xmlns:x="http://www.w3.org/2000/svg">alert(1)</x:script>'],
    ["event attribute", '<rect width="5" height="5" onload="alert(1)"/>'],
    ["uppercase event attribute", '<rect width="5" height="5" ONCLICK = "alert(1)"/>'],
    ["javascript URL", '<a href="javascript:alert(1)"><rect width="5" height="5"/></a>'],
    ["javascript URL with a tab", '<a href="java\tscript:alert(1)"><rect width="5" height="5"/></a>'],
    [
      "javascript URL as character references",
      '<a xlink:href="&#106;avascript&#x3a;alert(1)"><rect width="5" height="5"/></a>',
    ],
    ["html data URL", '<a href="data:text/html,&lt;script&gt;"><rect width="5" height="5"/></a>'],
    ["foreignObject", '<foreignObject><div xmlns="http://www.w3.org/1999/xhtml">hi</div></foreignObject>'],
    ["iframe", '<iframe src="https://evil.example"/>'],
    [
      "animation setting a script URL",
      '<a><set attributeName="href" to="javascript:alert(1)"/><rect width="5" height="5"/></a>',
    ],
    ["external image", '<image href="https://evil.example/x.png" width="5" height="5"/>'],
    ["external use", '<use href="http://evil.example/s.svg#a"/>'],
    ["external fill", '<rect width="5" height="5" fill="url(https://evil.example/p.svg#p)"/>'],
    ["external style attribute", '<rect width="5" height="5" style="fill:url(\'//evil.example/p.svg#p\')"/>'],
    ["style sheet import", "<style>@import url(https://evil.example/x.css); rect{fill:red}</style>"],
    ["style sheet with an escaped url", "<style>rect{fill:u\\72l(https://evil.example/p.svg#p)}</style>"],
  ])("removes a %s and keeps the drawing", async (_, body) => {
    const served = await sanitiseSvg(svg(`${body}<rect x="10" width="10" height="10" fill="#00f"/>`));
    const document = parse(served);
    expect(document.querySelector("parsererror")).toBeNull();
    expect(document.querySelectorAll("script, foreignObject, iframe, set").length).toBe(0);
    expect(outwardReferences(document)).toEqual([]);
    expect(served.toString()).not.toMatch(/javascript|evil\.example/i);
    expect(document.querySelectorAll("rect").length).toBeGreaterThan(0);
  });

  it("keeps embedded data: rasters", async () => {
    const tile = (
      await sharp({ create: { width: 2, height: 2, channels: 3, background: "#f00" } })
        .png()
        .toBuffer()
    ).toString("base64");
    const served = await sanitiseSvg(svg(`<image href="data:image/png;base64,${tile}" width="20" height="20"/>`));
    expect(parse(served).querySelector("image")?.getAttribute("href")).toBe(`data:image/png;base64,${tile}`);
  });

  it("expands no entity, internal or external, and writes no DOCTYPE", async () => {
    const head =
      '<!DOCTYPE svg [<!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY x SYSTEM "file:///etc/passwd">]>';
    const served = await sanitiseSvg(svg("<text>&b;&b;&b;&x;</text>", head));
    expect(served.length).toBeLessThan(1000);
    expect(served.toString()).not.toMatch(/DOCTYPE|ENTITY|root:/);
  });

  it("refuses what is not an SVG at all with 415", async () => {
    await expect(sanitiseSvg(Buffer.from("<html><body>hello</body></html>"))).rejects.toMatchObject({
      code: "UNSUPPORTED_IMAGE",
      status: 415,
    });
    await expect(
      sanitiseSvg(Buffer.from('<?xml-stylesheet href="https://evil.example/x.xsl"?><p>no</p>')),
    ).rejects.toMatchObject({ code: "UNSUPPORTED_IMAGE" });
  });
});
