/** scripts/ensure-machine.mjs: installs the Debian packages the tests drive when they are missing. */
export const MACHINE_PROGRAMS: readonly { program: string; debianPackage: string; usedBy: string }[];
export function missingPrograms(): { program: string; debianPackage: string; usedBy: string }[];
export function ensureMachine(): void;
