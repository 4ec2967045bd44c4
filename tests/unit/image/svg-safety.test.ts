import { describe, expect, it } from "vitest";
import { assertSafeSvg } from "@/server/image/svg-safety";

const svg = (body: string, head = "") =>
  Buffer.from(`<?xml version="1.0"?>${head}<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">${body}</svg>`);

describe("assertSafeSvg", () => {
  it("accepts plain drawings, including entity declarations editors write", () => {
    expect(() => assertSafeSvg(svg('<rect width="10" height="10" fill="#f00"/><text x="1" y="9">Only</text>'))).not.toThrow();
    expect(() => assertSafeSvg(svg('<a href="https://example.com"><circle r="4"/></a>'))).not.toThrow();
    expect(() => assertSafeSvg(svg("<rect/>", '<!DOCTYPE svg [<!ENTITY ns_svg "http://www.w3.org/2000/svg">]>'))).not.toThrow();
  });

  it.each([
    ["script element", "<script>alert(1)</script>"],
    ["namespaced script", '<x:script xmlns:x="http://www.w3.org/2000/svg">alert(1)</x:script>'],
    ["event attribute", '<rect onload="alert(1)"/>'],
    ["event attribute without spaces", '<rect/><image href="x"onerror="alert(1)"/>'],
    ["uppercase event attribute", '<rect ONCLICK = "alert(1)"/>'],
    ["javascript URL", '<a href="javascript:alert(1)"><rect/></a>'],
    ["javascript URL with whitespace", '<a href="java\tscript:alert(1)"><rect/></a>'],
    ["javascript URL as character references", '<a href="&#106;avascript&#x3a;alert(1)"><rect/></a>'],
    ["foreignObject", "<foreignObject><div>hi</div></foreignObject>"],
    ["iframe", '<iframe src="https://evil.example"/>'],
    ["animate to a script URL", '<a><set attributeName="href" to="javascript:alert(1)"/></a>'],
    ["html data URL", '<a href="data:text/html,&lt;script&gt;"><rect/></a>'],
  ])("refuses a %s", (_, body) => {
    expect(() => assertSafeSvg(svg(body))).toThrow(expect.objectContaining({ code: "UNSUPPORTED_IMAGE", status: 415 }));
  });

  it("refuses a script URL hidden in an internal entity", () => {
    const file = svg('<a href="&js;alert(1)"><rect/></a>', '<!DOCTYPE svg [<!ENTITY js "javascript:">]>');
    expect(() => assertSafeSvg(file)).toThrow(expect.objectContaining({ code: "UNSUPPORTED_IMAGE" }));
  });

  it("refuses external entities and stylesheets", () => {
    expect(() => assertSafeSvg(svg("<text>&x;</text>", '<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>'))).toThrow();
    expect(() => assertSafeSvg(Buffer.from('<?xml-stylesheet href="https://evil.example/x.xsl"?><svg/>'))).toThrow();
  });

  it("refuses entity expansion bombs", () => {
    const head =
      '<!DOCTYPE svg [<!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">' +
      '<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">' +
      '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>';
    expect(() => assertSafeSvg(svg("<text>&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;</text>", head))).toThrow(
      expect.objectContaining({ code: "UNSUPPORTED_IMAGE" }),
    );
  });
});
