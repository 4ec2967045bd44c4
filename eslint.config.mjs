import js from "@eslint/js";
import nextPlugin from "@next/eslint-plugin-next";
import drizzle from "eslint-plugin-drizzle";
import reactHooks from "eslint-plugin-react-hooks";
import tseslint from "typescript-eslint";
import optstuff from "./tools/eslint/client-imports.mjs";

export default tseslint.config(
  {
    ignores: [
      ".next/**",
      "node_modules/**",
      ".data/**",
      "next-env.d.ts",
      "artifacts/**",
      "coverage/**",
      "bench/peers/next-optimizer/.next/**",
      "bench/peers/next-optimizer/next-env.d.ts",
      "packages/*/dist/**",
      "dist/**",
      ".scratch/**",
      ".snippet-*/**",
      "examples/*/.next/**",
      "examples/*/next-env.d.ts",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Type-aware rules: a promise nobody awaits loses its error (and, in a route, its ordering); one
    // passed where a callback returns void is never awaited either.
    files: ["**/*.ts", "**/*.tsx", "**/*.mts"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { attributes: false } }],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
    },
  },
  {
    // A delete or update without a where clause rewrites every tenant's rows.
    plugins: { drizzle },
    rules: {
      "drizzle/enforce-delete-with-where": ["error", { drizzleObjectName: ["db", "tx", "database"] }],
      "drizzle/enforce-update-with-where": ["error", { drizzleObjectName: ["db", "tx", "database"] }],
    },
  },
  {
    files: ["src/**/*.tsx", "src/**/*.ts", "examples/**/*.tsx"],
    ...reactHooks.configs.flat["recommended-latest"],
  },
  {
    files: ["src/**/*.tsx", "src/**/*.ts"],
    plugins: { "@next/next": nextPlugin },
    rules: { ...nextPlugin.configs.recommended.rules, ...nextPlugin.configs["core-web-vitals"].rules },
    settings: { next: { rootDir: "." } },
  },
  {
    files: ["src/**/*.tsx", "src/**/*.ts"],
    plugins: { optstuff },
    rules: { "optstuff/client-imports": "error" },
  },
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
    files: [
      "src/env.ts",
      "scripts/**",
      "tests/**",
      "bench/**",
      "tools/**",
      "examples/**",
      "*.config.ts",
      "*.config.mjs",
    ],
    rules: { "no-restricted-syntax": "off" },
  },
  {
    files: ["**/*.mjs", "**/*.cjs"],
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly", setTimeout: "readonly" } },
  },
);
