// A "use client" module is bundled for the browser: a value import from src/server (or src/env) would
// ship server code there, or fail the build at a `server-only` module. Types are erased and may cross.
// ESLint's no-restricted-imports cannot tell client modules from server ones (both live in
// src/components and src/app), hence this rule keyed on the directive.
const SERVER = /^@\/(server\/|env$)/;

function isClientModule(program) {
  return program.body.some((node) => node.type === "ExpressionStatement" && node.directive === "use client");
}

function isTypeOnly(node) {
  return (
    node.importKind === "type" || (node.specifiers.length > 0 && node.specifiers.every((s) => s.importKind === "type"))
  );
}

export const clientImports = {
  meta: {
    type: "problem",
    docs: { description: "Client components import only types from src/server and src/env" },
    messages: {
      serverValue:
        "A client component imports values from {{source}}: import types only, or move the value to src/lib.",
    },
    schema: [],
  },
  create(context) {
    let client = false;
    return {
      Program(program) {
        client = isClientModule(program);
      },
      ImportDeclaration(node) {
        if (client && SERVER.test(node.source.value) && !isTypeOnly(node)) {
          context.report({ node, messageId: "serverValue", data: { source: node.source.value } });
        }
      },
    };
  },
};

export default { rules: { "client-imports": clientImports } };
