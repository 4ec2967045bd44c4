export default function HomePage() {
  return (
    <main style={{ maxWidth: 640, margin: "4rem auto", padding: "0 1rem", lineHeight: 1.6 }}>
      <h1>OptStuff</h1>
      <p>
        Signed image delivery is running. Image URLs have the form{" "}
        <code>/api/v1/{"{project}"}/{"{operations}"}/{"{source}"}?key=…&amp;sig=…</code>.
      </p>
      <p>
        Health: <a href="/api/health">/api/health</a>
      </p>
    </main>
  );
}
