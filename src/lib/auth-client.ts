"use client";

import { createAuthClient } from "better-auth/react";

/** Same origin as the pages: the auth endpoints live under /api/auth. */
export const authClient = createAuthClient();
