import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: [".next/**", "node_modules/**", ".data/**", "next-env.d.ts", "artifacts/**", "coverage/**", "bench/peers/next-optimizer/.next/**", "bench/peers/next-optimizer/next-env.d.ts", "packages/*/dist/**", "dist/**", ".scratch/**", "examples/*/.next/**", "examples/*/next-env.d.ts"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-restricted-syntax": [
        "error",
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: "Read configuration through src/env.ts only.",
        },
      ],
    },
  },
  {
    // Only the environment module, the tooling around the app, the tests and the examples (apps of
    // their own) may read process.env.
    files: ["src/env.ts", "scripts/**", "tests/**", "bench/**", "tools/**", "examples/**", "*.config.ts", "*.config.mjs"],
    rules: { "no-restricted-syntax": "off" },
  },
  {
    files: ["**/*.mjs", "**/*.cjs"],
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly", setTimeout: "readonly" } },
  },
);
