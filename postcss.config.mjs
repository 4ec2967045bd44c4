// Tailwind CSS v4 runs as a PostCSS plugin under Next.
export default { plugins: { "@tailwindcss/postcss": {} } };
