/** What a transform process needs in its environment to draw SVG text with the given fonts. */
export function fontEnvironment(fontConfigFile: string | null | undefined): Record<string, string> {
  return fontConfigFile ? { FONTCONFIG_FILE: fontConfigFile } : {};
}
