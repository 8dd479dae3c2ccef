// Checks the shape of the workspace that the architecture relies on: dependencies point inward
// to the protocol and the deterministic core, the SDK never reaches server code, the core has no
// hidden I/O, clock or randomness, the testing world is never imported by production code, and
// every venue is built by the one assembly (packages/adapters/src/assembly).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PACKAGES = ['protocol', 'notes', 'core', 'adapters', 'chain-sim', 'sdk', 'cli', 'testing'] as const;
type Package = (typeof PACKAGES)[number];

/** Which workspace packages each package's production code may import. */
const ALLOWED: Record<Package, readonly Package[]> = {
  protocol: [],
  // Notes and proofs are pure cryptography over the protocol's types, shared by venue, chain and SDK.
  notes: ['protocol'],
  // The core receives the note-commitment hash as a function (CoreConfig), so it stays synchronous.
  core: ['protocol'],
  'chain-sim': ['protocol', 'notes'],
  sdk: ['protocol', 'notes'],
  adapters: ['protocol', 'notes', 'core'],
  testing: ['protocol', 'notes', 'core', 'chain-sim', 'adapters', 'sdk'],
  cli: ['protocol', 'notes', 'core', 'adapters', 'chain-sim', 'sdk'],
};

function sourceFiles(dir: string): string[] {
  let found: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) found = found.concat(sourceFiles(path));
    else if (entry.endsWith('.ts')) found.push(path);
  }
  return found;
}

const IMPORT = /(?:^|\s)(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((m) => m[1] ?? m[2] ?? '');
}

/** A package whose issue has not landed yet has no src folder (git keeps no empty folders). */
function productionFiles(pkg: Package): string[] {
  const src = join(ROOT, 'packages', pkg, 'src');
  return existsSync(src) ? sourceFiles(src) : [];
}

describe('workspace architecture', () => {
  for (const pkg of PACKAGES) {
    test(`${pkg} imports only the workspace packages it may depend on`, () => {
      for (const file of productionFiles(pkg)) {
        for (const specifier of importsOf(file)) {
          const match = /^@venue\/([a-z-]+)/.exec(specifier);
          if (match) {
            const target = match[1] as Package;
            assert.ok(
              target === pkg || ALLOWED[pkg].includes(target),
              `${file} imports @venue/${target}, which ${pkg} may not depend on`,
            );
          }
          if (specifier.startsWith('.')) {
            assert.ok(
              !specifier.includes('/packages/') && !/^(\.\.\/){3,}/.test(specifier),
              `${file}: ${specifier} leaves its package`,
            );
          }
        }
      }
    });

    test(`${pkg}'s package.json declares no dependency on a package it may not use`, () => {
      const manifest = JSON.parse(readFileSync(join(ROOT, 'packages', pkg, 'package.json'), 'utf8')) as {
        dependencies?: Record<string, string>;
      };
      for (const dependency of Object.keys(manifest.dependencies ?? {})) {
        const match = /^@venue\/([a-z-]+)$/.exec(dependency);
        if (match) assert.ok(ALLOWED[pkg].includes(match[1] as Package), `${pkg} declares ${dependency}`);
      }
    });
  }

  test('the core is deterministic: no I/O modules, no clock, no randomness, no timers', () => {
    const forbiddenModules =
      /^node:(fs|net|http|https|http2|tls|dgram|dns|child_process|worker_threads|os|timers|cluster)/;
    const forbiddenCalls =
      /\b(Date\.now|new Date\(|Math\.random|performance\.now|setTimeout|setInterval|setImmediate|process\.hrtime|randomBytes|randomUUID)\b/;
    for (const file of productionFiles('core')) {
      for (const specifier of importsOf(file))
        assert.ok(!forbiddenModules.test(specifier), `${file} imports ${specifier}`);
      const code = readFileSync(file, 'utf8').replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, '');
      const hit = forbiddenCalls.exec(code);
      assert.equal(hit, null, `${file} uses ${hit?.[0]}: the core must be handed time and randomness`);
    }
  });

  test('no production code imports the testing world', () => {
    for (const pkg of PACKAGES.filter((p) => p !== 'testing')) {
      for (const file of productionFiles(pkg)) {
        assert.ok(
          !importsOf(file).some((s) => s.startsWith('@venue/testing')),
          `${file} imports @venue/testing`,
        );
      }
    }
  });

  test('every venue is built by the one assembly: nothing else wires its parts or companions', () => {
    const offenders: string[] = [];
    for (const file of wiringCandidates()) {
      const path = relative(ROOT, file);
      if (WIRING_ALLOWED.some((allowed) => path.startsWith(allowed))) continue;
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(WIRING)) offenders.push(`${path}: ${match[0]}`);
    }
    assert.deepEqual(offenders, [], 'build the venue with assembleVenue(ports, options) instead');
  });
});

/**
 * What only the assembly may call or construct: the server and engine boot, the settlement pipeline
 * and state check, the chain and oracle watches, the tree channel, and the companions the server
 * and the pipeline must share. A definition (`function bootEngine(`) is not a call.
 */
const WIRING = new RegExp(
  [
    String.raw`(?<!function )\b(?:openVenueServer|createSettlementPipeline|bootEngine)\(`,
    String.raw`\bnew (?:SettlementPipeline|ChainStateCheck|GovernanceWatch|RootMirror|OracleMonitor|TreeFeed|RemoteTreeFeed|StreamServer|OrderIntake|NoteOpenings|MatchFacts|LandedBatches|CommitmentMemo|SettlementMetrics)\(`,
  ].join('|'),
  'g',
);

/**
 * Where wiring is allowed: the assembly itself; the adapters' own tests, which drive each of these
 * classes on its own; the snapshot replica, whose worker keeps its own copies of the companions to
 * write snapshots (it serves no venue); and the intake microbenchmark, which times the commitment
 * memo alone.
 */
const WIRING_ALLOWED = [
  'packages/adapters/src/assembly/',
  'packages/adapters/test/',
  'packages/adapters/src/replica/',
  'bench/intake.ts',
];

/** Every TypeScript file of the packages, the benches and the scripts. */
function wiringCandidates(): string[] {
  const roots = [
    ...PACKAGES.flatMap((pkg) => ['src', 'test'].map((dir) => join(ROOT, 'packages', pkg, dir))),
    join(ROOT, 'bench'),
    join(ROOT, 'scripts'),
  ];
  return roots.filter((dir) => existsSync(dir)).flatMap((dir) => sourceFiles(dir));
}
