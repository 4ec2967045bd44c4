export const CLI_BUNDLE: string;
export function buildCli(): Promise<string>;
export function cliIsCurrent(): boolean;
