/** scripts/ensure-machine.mjs: installs the Debian packages the tests drive when they are missing. */
export interface MachineProgram {
  program: string;
  debianPackage: string;
  usedBy: string;
}
export const MACHINE_PROGRAMS: readonly MachineProgram[];
export function missingPrograms(only?: readonly string[]): MachineProgram[];
export function ensureMachine(only?: readonly string[]): void;
