"use client";

import { createAuthClient } from "better-auth/react";
import { twoFactorClient } from "better-auth/client/plugins";
import { passkeyClient } from "@better-auth/passkey/client";

/** Same origin as the pages: the auth endpoints live under /api/auth. The sign-in form asks for a code itself. */
export const authClient = createAuthClient({ plugins: [twoFactorClient(), passkeyClient()] });
