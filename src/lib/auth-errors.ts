/** better-auth's refusals as the dashboard says them: by status and code, its own text last. */
export function authErrorMessage(error: { status: number; code?: string; message?: string }): string {
  if (error.status === 429) return "Too many attempts. Wait a few minutes and try again.";
  const said = AUTH_ERROR_TEXTS[error.code ?? ""];
  return said ?? error.message ?? "Something went wrong";
}

/** What a provider's sign-in that came back refused (`/sign-in?error=…`) says; null for no such code. */
export function providerErrorMessage(code: string | undefined): string | null {
  if (!code) return null;
  return PROVIDER_ERROR_TEXTS[code] ?? "Signing in with the provider failed: try again, or sign in with your password";
}

const PROVIDER_ERROR_TEXTS: Record<string, string> = {
  email_not_verified: "Your provider has not verified your e-mail address, so it cannot sign you in here",
  email_domain_not_allowed: "Your e-mail address's domain may not sign in to this server",
  unable_to_create_session:
    "This account has a second factor: sign in with its e-mail address, password and code instead",
  account_not_linked: "An account with this address already exists: sign in with its password",
  state_mismatch: "The sign-in took too long or began in another browser: try again",
  unable_to_get_user_info: "The provider's answer could not be checked: try again, or ask your administrator",
  REGISTRATION_CLOSED: "Registration on this server is by invitation: open the invitation link you were sent",
};

const AUTH_ERROR_TEXTS: Record<string, string> = {
  INVALID_PASSWORD: "That password is not right",
  INVALID_CODE: "That code is not right: check the app's current code",
  INVALID_BACKUP_CODE: "That recovery code is not right, or it was used before",
  INVALID_TWO_FACTOR_COOKIE: "The sign-in took too long: sign in again",
  ACCOUNT_TEMPORARILY_LOCKED: "Too many wrong codes. Wait a few minutes and try again.",
  TOTP_ALREADY_ENABLED: "A second factor is already on",
  SESSION_NOT_FRESH: "Your session is more than a day old: sign out and in again, then add the passkey",
  PASSKEY_NOT_FOUND: "That passkey is not registered here (it may have been removed): sign in with your password",
  AUTHENTICATION_FAILED: "The passkey's answer could not be checked: try again",
  FAILED_TO_VERIFY_REGISTRATION: "The passkey's answer could not be checked: try again",
  CHALLENGE_NOT_FOUND: "The passkey took too long to answer: try again",
  AUTH_CANCELLED: "Signing in with a passkey was cancelled",
  REGISTRATION_CANCELLED: "Adding the passkey was cancelled",
  ERROR_CEREMONY_ABORTED: "Adding the passkey was cancelled",
  PREVIOUSLY_REGISTERED: "This device's passkey is already on your account",
  ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED: "This device's passkey is already on your account",
};
