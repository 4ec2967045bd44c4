/** The invitation page sends a signed-out visitor to sign up or sign in with next=/invite/{token}. */
const INVITATION_PATH = /^\/invite\/([A-Za-z0-9_-]{1,200})$/;

/** The invitation token a sign-up or sign-in started from, or null. */
export function invitationTokenIn(next: string): string | null {
  return INVITATION_PATH.exec(next)?.[1] ?? null;
}

export type OnboardingStep = { kind: "name-team" } | { kind: "go"; to: string };

/**
 * Where onboarding leads a signed-in account (after sign-up, from `/`, after declining an invitation):
 * - the team made at sign-up waits for its name: the form;
 * - it has teams and none waits (the first account adopted the quickstart's `demo`): on to `next`, or
 *   its first team;
 * - it has none and came from an invitation (no team is made for it): on to the invitation;
 * - it has none otherwise (it declined the invitation): the form, which makes its team.
 */
export function onboardingStep(
  me: { pendingTeamSlug: string | null; teams: ReadonlyArray<{ slug: string }> },
  next: string,
): OnboardingStep {
  if (me.pendingTeamSlug) return { kind: "name-team" };
  const first = me.teams[0];
  if (first) return { kind: "go", to: next !== "/" ? next : `/t/${first.slug}` };
  if (invitationTokenIn(next)) return { kind: "go", to: next };
  return { kind: "name-team" };
}
