import Image from "next/image";
import { connection } from "next/server";
import { info, placeholder } from "@optstuff/client";
import { optstuffKeys, siteUrl } from "@/lib/optstuff";

const PHOTO = "/photos/photo.jpg";

// Placeholders fetched once per image and process: each fetch is a metered OptStuff request.
const placeholders = new Map<string, Promise<string>>();

/** A placeholder is a nicety: without OptStuff the page still renders, and says why in the log. */
async function placeholderFor(path: string): Promise<string | undefined> {
  let pending = placeholders.get(path);
  if (!pending) {
    // OptStuff's info answers the source's ThumbHash; placeholder() paints it as a small PNG data URL.
    pending = info({ ...optstuffKeys(), source: new URL(path, siteUrl()).href }).then((described) =>
      placeholder(described.thumbhash),
    );
    placeholders.set(path, pending);
  }
  try {
    return await pending;
  } catch (error) {
    placeholders.delete(path); // tried again on the next render
    console.error(`no blur placeholder for ${path}:`, error);
    return undefined;
  }
}

export default async function Home() {
  await connection(); // rendered per request: the placeholder is fetched from OptStuff at run time
  const blur = await placeholderFor(PHOTO);
  return (
    <main style={{ maxWidth: 800, margin: "0 auto", padding: 24 }}>
      <h1 style={{ fontSize: 28 }}>next/image, resized by OptStuff</h1>
      <p>
        Each image below is a plain <code>&lt;Image&gt;</code>: the loader asks this app&apos;s /api/image, which signs
        on the server and redirects to OptStuff.
      </p>
      <Image
        src={PHOTO}
        alt="Hills at sunset"
        width={1600}
        height={1067}
        sizes="(max-width: 800px) 100vw, 800px"
        style={{ width: "100%", height: "auto", borderRadius: 8 }}
        placeholder={blur ? "blur" : "empty"}
        blurDataURL={blur}
        preload
      />
      <h2 style={{ fontSize: 20 }}>A fixed-size image by absolute URL</h2>
      <Image src={`${siteUrl()}/photos/logo.png`} alt="OptStuff logo" width={128} height={128} />
    </main>
  );
}
