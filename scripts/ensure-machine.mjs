// Installs the system programs the tests drive that a fresh Debian machine lacks: Chromium (the
// console's browser tests) and nats-server (the message-bus tests). `npm test` runs this first, so
// CI and a new clone never skip a test for want of them. When everything is present it only checks
// a few paths and returns at once.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/** The programs and the Debian packages that provide them. */
export const MACHINE_PROGRAMS = [
  { program: '/usr/bin/chromium', debianPackage: 'chromium', usedBy: 'the console browser tests' },
  { program: '/usr/sbin/nats-server', debianPackage: 'nats-server', usedBy: 'the message-bus tests' },
];

/** `only`: Debian package names to consider (default: all of MACHINE_PROGRAMS). */
export function missingPrograms(only) {
  return MACHINE_PROGRAMS.filter(
    (entry) => (only === undefined || only.includes(entry.debianPackage)) && !existsSync(entry.program),
  );
}

function run(command, args) {
  console.log(`ensure-machine: ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  return result.status === 0;
}

export function ensureMachine(only) {
  const missing = missingPrograms(only);
  if (missing.length === 0) return;
  for (const entry of missing) {
    console.log(
      `ensure-machine: ${entry.program} is missing (needed by ${entry.usedBy}); installing Debian package ${entry.debianPackage}`,
    );
  }
  const asRoot = process.getuid?.() === 0;
  const prefix = asRoot ? [] : ['sudo', '-n'];
  const apt = (args) =>
    run(prefix[0] ?? 'apt-get', [...prefix.slice(1), ...(asRoot ? [] : ['apt-get']), ...args]);
  const packages = missing.map((entry) => entry.debianPackage);
  // Waits for another installer's lock instead of failing at once (several sessions share a machine).
  const install = ['-o', 'DPkg::Lock::Timeout=600', 'install', '-y', '--no-install-recommends', ...packages];
  // The package lists of a fresh machine may be empty or old: refresh them only when needed.
  if (!apt(install)) {
    if (!apt(['-o', 'DPkg::Lock::Timeout=600', 'update']) || !apt(install)) {
      throw new Error(
        `ensure-machine: could not install ${packages.join(', ')}; install them with apt-get (as root) and run again`,
      );
    }
  }
  const still = missingPrograms(only);
  if (still.length > 0) {
    throw new Error(`ensure-machine: still missing after install: ${still.map((e) => e.program).join(', ')}`);
  }
  console.log(`ensure-machine: installed ${packages.join(', ')}`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  try {
    ensureMachine();
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
