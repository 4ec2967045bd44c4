/**
 * bench:quality's corpus: real photographs and graphics read from Debian packages (downloaded with
 * `apt-get download`, unpacked with `dpkg-deb`, nothing installed), plus two graphics of the project's
 * own. Kept under .data/bench-corpus, so a later run reads what the first one unpacked.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";

export interface CorpusImage {
  name: string;
  kind: "photo" | "graphic";
  contentType: "image/jpeg" | "image/png";
  body: Buffer;
}

const DIR = ".data/bench-corpus";

/** KDE's photographic wallpapers (the newer ones are renders), each at 2560×1600. */
const KDE_PHOTOS = [
  "Autumn",
  "BytheWater",
  "ColdRipple",
  "ColorfulCups",
  "DarkestHour",
  "EveningGlow",
  "FallenLeaf",
  "Grey",
  "Kite",
  "OneStandsOut",
  "Path",
  "summer_1am",
];
const MATE_PHOTOS = [
  "nature/Aqua",
  "nature/Blinds",
  "nature/Dune",
  "nature/Garden",
  "nature/GreenMeadow",
  "nature/LadyBird",
  "nature/RainDrops",
  "nature/Storm",
  "nature/TwoWings",
  "nature/Wood",
  "nature/YellowFlower",
  "abstract/Elephants",
];
/** Flat graphics: stripes, an illustration with transparency, vector art (rasterised here). */
const MATE_GRAPHICS = [
  "abstract/Arc-Colors-Transparent-Wallpaper.png",
  "desktop/Stripes.png",
  "desktop/MATE-Stripes-Light.png",
];
const GNOME_GRAPHICS = ["blobs-l.svg", "drool-l.svg", "oceans.svg"];
/** The project's own: its logo, and a benchmark chart (text, axes, flat bars: a screenshot's traits). */
const OWN_GRAPHICS = ["demo/logo.png", "docs/bench-throughput.png"];

const PACKAGES = {
  "plasma-workspace-wallpapers": KDE_PHOTOS.map(
    (name) => `./usr/share/wallpapers/${name}/contents/images/2560x1600.jpg`,
  ),
  "mate-backgrounds": [
    ...MATE_PHOTOS.map((name) => `./usr/share/backgrounds/mate/${name}.jpg`),
    ...MATE_GRAPHICS.map((name) => `./usr/share/backgrounds/mate/${name}`),
  ],
  "gnome-backgrounds": GNOME_GRAPHICS.map((name) => `./usr/share/backgrounds/gnome/${name}`),
};

/** Downloads and unpacks what is missing; every file is checked to exist afterwards. */
function unpack(): void {
  const debs = path.join(DIR, "debs");
  const root = path.join(DIR, "files");
  mkdirSync(debs, { recursive: true });
  mkdirSync(root, { recursive: true });
  for (const [pkg, files] of Object.entries(PACKAGES)) {
    if (files.every((file) => existsSync(path.join(root, file)))) continue;
    if (!readdirSync(debs).some((f) => f.startsWith(`${pkg}_`))) {
      console.error(`downloading ${pkg} (apt-get download)…`);
      execFileSync("apt-get", ["download", pkg], { cwd: debs, stdio: ["ignore", "ignore", "inherit"] });
    }
    const deb = path.join(
      debs,
      readdirSync(debs).find((f) => f.startsWith(`${pkg}_`))!,
    );
    const tar = execFileSync("dpkg-deb", ["--fsys-tarfile", deb], { maxBuffer: 1 << 30 });
    execFileSync("tar", ["-x", "-C", root, ...files], { input: tar, maxBuffer: 1 << 30 });
    for (const file of files) if (!existsSync(path.join(root, file))) throw new Error(`${pkg} has no ${file}`);
  }
}

/** 24 photographs and 8 graphics, as a source origin would serve them (SVGs rasterised to PNG). */
export async function loadCorpus(): Promise<CorpusImage[]> {
  unpack();
  const root = path.join(DIR, "files");
  const images: CorpusImage[] = [];
  for (const file of [
    ...PACKAGES["plasma-workspace-wallpapers"],
    ...PACKAGES["mate-backgrounds"].slice(0, MATE_PHOTOS.length),
  ]) {
    const name = file.includes("/wallpapers/") ? file.split("/")[4]! : path.basename(file, ".jpg");
    images.push({ name, kind: "photo", contentType: "image/jpeg", body: readFileSync(path.join(root, file)) });
  }
  const graphics = [
    ...MATE_GRAPHICS.map((name) => path.join(root, "usr/share/backgrounds/mate", name)),
    ...GNOME_GRAPHICS.map((name) => path.join(root, "usr/share/backgrounds/gnome", name)),
    ...OWN_GRAPHICS,
  ];
  for (const file of graphics) {
    const svg = file.endsWith(".svg");
    const body = svg
      ? await sharp(readFileSync(file), { density: 96 }).resize(1600).png().toBuffer()
      : readFileSync(file);
    images.push({ name: path.basename(file).replace(/\.\w+$/, ""), kind: "graphic", contentType: "image/png", body });
  }
  return images;
}
