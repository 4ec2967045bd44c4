/** The app exists for `/_next/image`; this page only gives `next build` something to build. */
export default function Page() {
  return <p>Next.js image optimizer peer for bench:image.</p>;
}
