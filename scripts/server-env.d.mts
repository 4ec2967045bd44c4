export function serverEnv(env?: Record<string, string | undefined>): Record<string, string | undefined>;
