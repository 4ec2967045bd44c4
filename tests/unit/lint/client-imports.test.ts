import { RuleTester } from "eslint";
import tseslint from "typescript-eslint";
import { describe, it } from "vitest";
import { clientImports } from "../../../tools/eslint/client-imports.mjs";

RuleTester.describe = describe;
RuleTester.it = it;
const tester = new RuleTester({
  languageOptions: { parser: tseslint.parser, ecmaVersion: 2022, sourceType: "module" },
});

describe("optstuff/client-imports", () => {
  tester.run("client-imports", clientImports, {
    valid: [
      { code: `"use client";\nimport type { AppRouter } from "@/server/api/root";` },
      { code: `"use client";\nimport { type RequestLogStatus } from "@/server/errors";` },
      { code: `"use client";\nimport { formatBytes } from "@/lib/format";` },
      // A server component (no directive) may import server values.
      { code: `import { getServices } from "@/server/services";` },
    ],
    invalid: [
      {
        code: `"use client";\nimport { requestLogStatuses } from "@/server/errors";`,
        errors: [{ messageId: "serverValue" }],
      },
      { code: `"use client";\nimport { env } from "@/env";`, errors: [{ messageId: "serverValue" }] },
      {
        code: `"use client";\nimport { type ErrorCode, AppError } from "@/server/errors";`,
        errors: [{ messageId: "serverValue" }],
      },
    ],
  });
});
