/** Markdown helpers shared by the generated sections of docs/*.md. */

export const GENERATOR = "scripts/generate-docs.ts";

/** Table cells: a `|` must be escaped even inside a code span, and a cell is one line. */
export function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\s*\n\s*/g, " ");
}

export function code(text: string): string {
  return `\`${text}\``;
}

export function generatedNote(source: string): string {
  return `<!-- Generated from ${source} by ${GENERATOR}; do not edit by hand. -->`;
}

/** A GitHub table under its generated-from note; every cell goes through `cell`. */
export function renderTable(source: string, header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.map(cell).join(" | ")} |`;
  return [generatedNote(source), "", line(header), `|${header.map(() => "---").join("|")}|`, ...rows.map(line)].join(
    "\n",
  );
}

/** Replaces what lies between `<!-- name:start -->` and `<!-- name:end -->`, which must each occur once. */
export function replaceSection(markdown: string, name: string, body: string): string {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const from = markdown.indexOf(start);
  const to = markdown.indexOf(end);
  if (
    from === -1 ||
    to === -1 ||
    to < from ||
    markdown.indexOf(start, from + 1) !== -1 ||
    markdown.indexOf(end, to + 1) !== -1
  ) {
    throw new Error(`${GENERATOR}: expected exactly one ${start} … ${end} pair`);
  }
  // The blank line keeps the end marker from being read as part of the table.
  return `${markdown.slice(0, from + start.length)}\n${body}\n\n${markdown.slice(to)}`;
}

/** Rebuilds every named section of a document; `sections` maps a marker name to its new body. */
export function replaceSections(markdown: string, sections: Readonly<Record<string, string>>): string {
  return Object.entries(sections).reduce((doc, [name, body]) => replaceSection(doc, name, body), markdown);
}
