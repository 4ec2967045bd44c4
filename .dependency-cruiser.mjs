/**
 * The shape of src/ that `npm run check` holds: no import cycle (type-only imports count: a cycle of
 * types is still two modules that cannot be read apart), and the domain folders under src/server never
 * import the composition root; only adapters (src/server/http, startup) and src/app do; nothing under
 * src/server imports the adapters. Code in src/lib is shared with the browser and loads nothing from
 * src/server.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: "no-cycle",
      severity: "error",
      comment: "Modules in a cycle cannot be understood, tested or loaded apart.",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "domain-not-composition-root",
      severity: "error",
      comment: "Domain modules get their dependencies passed in; only adapters and the app read the composition root.",
      from: {
        path: "^src/server/",
        pathNot: ["^src/server/services\\.ts$", "^src/server/http/", "^src/server/startup\\.ts$"],
      },
      to: { path: "^src/server/services\\.ts$" },
    },
    {
      name: "adapters-on-top",
      severity: "error",
      comment:
        "src/server/http holds the route adapters, which only the app's route files mount; what the domain needs of HTTP (answers, error answers, body caps, bearer checks) is in src/server/wire, below them.",
      from: { path: "^src/server/", pathNot: ["^src/server/http/"] },
      to: { path: "^src/server/http/" },
    },
    {
      name: "shared-code-not-server",
      severity: "error",
      comment:
        "src/lib is bundled into the browser as well (the forms validate with the procedures' own schemas): it may name the server's types, never load its modules.",
      from: { path: "^src/lib/" },
      to: { path: "^src/server/", dependencyTypesNot: ["type-only"] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
  },
};
