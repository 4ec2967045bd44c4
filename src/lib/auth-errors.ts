/** better-auth's refusals as the dashboard says them: by status and code, its own text last. */
export function authErrorMessage(error: { status: number; code?: string; message?: string }): string {
  if (error.status === 429) return "Too many attempts. Wait a few minutes and try again.";
  const said = AUTH_ERROR_TEXTS[error.code ?? ""];
  return said ?? error.message ?? "Something went wrong";
}

const AUTH_ERROR_TEXTS: Record<string, string> = {
  INVALID_PASSWORD: "That password is not right",
  INVALID_CODE: "That code is not right: check the app's current code",
  INVALID_BACKUP_CODE: "That recovery code is not right, or it was used before",
  INVALID_TWO_FACTOR_COOKIE: "The sign-in took too long: sign in again",
  ACCOUNT_TEMPORARILY_LOCKED: "Too many wrong codes. Wait a few minutes and try again.",
  TOTP_ALREADY_ENABLED: "A second factor is already on",
};
