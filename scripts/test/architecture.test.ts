// Checks the shape of the workspace that the architecture relies on: dependencies point inward
// to the protocol and the deterministic core, the SDK never reaches server code, the core has no
// hidden I/O, clock or randomness, the testing world is never imported by production code, no
// package's files import each other in a cycle, and every venue is built by the one assembly
// (packages/adapters/src/assembly).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PACKAGES = [
  'protocol',
  'notes',
  'core',
  'adapters',
  'chain-sim',
  'sdk',
  'cli',
  'testing',
  'console',
] as const;
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
  // The operator console is a browser page: it knows the venue only through its HTTP routes.
  console: [],
};

function sourceFiles(dir: string): string[] {
  let found: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) found = found.concat(sourceFiles(path));
    else if (entry.endsWith('.ts') || entry.endsWith('.tsx')) found.push(path);
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

/**
 * The first import cycle among a package's own files (relative imports, type-only ones included:
 * a cycle through a type still ties two files together), as the files around it, or null.
 */
function importCycleOf(pkg: Package): string[] | null {
  const edges = new Map<string, string[]>();
  for (const file of productionFiles(pkg)) {
    const relative = importsOf(file).filter((specifier) => specifier.startsWith('.'));
    edges.set(
      file,
      relative.map((specifier) => resolve(dirname(file), specifier)),
    );
  }
  const done = new Set<string>();
  const path: string[] = [];
  const onPath = new Set<string>();
  const visit = (file: string): string[] | null => {
    if (onPath.has(file)) return [...path.slice(path.indexOf(file)), file];
    if (done.has(file)) return null;
    path.push(file);
    onPath.add(file);
    for (const target of edges.get(file) ?? []) {
      const cycle = visit(target);
      if (cycle !== null) return cycle;
    }
    path.pop();
    onPath.delete(file);
    done.add(file);
    return null;
  };
  for (const file of edges.keys()) {
    const cycle = visit(file);
    if (cycle !== null) return cycle;
  }
  return null;
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

    test(`${pkg} has no import cycle among its own files`, () => {
      const cycle = importCycleOf(pkg);
      assert.equal(
        cycle,
        null,
        `import cycle: ${cycle?.map((file) => file.slice(ROOT.length)).join(' -> ')}`,
      );
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

  // The chain's wire contract has one home (packages/protocol/src/chain, docs/chain-sim.md section
  // 11): its methods, messages and JSON-RPC envelope are declared there and nowhere else, so the
  // chain's server, the venue's chain client and the SDK cannot drift apart.
  test('only the chain contract speaks the JSON-RPC envelope', () => {
    const contract = join(ROOT, 'packages', 'protocol', 'src', 'chain');
    for (const pkg of PACKAGES) {
      for (const file of productionFiles(pkg)) {
        if (file.startsWith(contract)) continue;
        const code = readFileSync(file, 'utf8').replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, '');
        assert.ok(
          !/jsonrpc/i.test(code),
          `${file} writes or reads a JSON-RPC envelope: use the chain contract`,
        );
      }
    }
  });

  test('message shapes are declared only in protocol: no schemas built elsewhere', () => {
    for (const pkg of PACKAGES.filter((p) => p !== 'protocol')) {
      for (const file of productionFiles(pkg)) {
        const code = readFileSync(file, 'utf8');
        // A type-only import (TSchema in a generic helper) builds nothing.
        assert.ok(
          !/^import\s+(?!type\b)[^;]*?from\s+['"]typebox/m.test(code),
          `${file} imports typebox: declare the schema in @venue/protocol`,
        );
        assert.ok(
          !/\bStrict\(\s*\{\s*[A-Za-z_'"[.]/.test(code),
          `${file} declares an object schema with fields: declare it in @venue/protocol`,
        );
      }
    }
  });

  // Issue 18: what the stream sends is typed by the protocol's schemas (adapters/src/stream/
  // stream-frames.ts) and written by its encoder, which checks each frame against its schema.
  test('stream frames are typed and leave only through the protocol encoder', () => {
    const adapters = join(ROOT, 'packages', 'adapters', 'src');
    const stream = sourceFiles(join(adapters, 'stream'));
    const code = (file: string) => readFileSync(file, 'utf8').replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, '');
    // Wherever they live, the modules that hand channel messages to the stream (the pipeline, the tree feeds).
    const publishers = sourceFiles(adapters).filter((file) => /\.publish(Fill|Tree)\(/.test(code(file)));
    assert.ok(publishers.length >= 3, 'the pipeline and both tree feeds publish');
    for (const file of [...stream, ...publishers]) {
      assert.doesNotMatch(code(file), /Record<string,\s*unknown>/, `${file}: a frame as an untyped record`);
    }
    for (const file of stream) {
      const text = code(file);
      assert.doesNotMatch(
        text,
        /\b(stringifyJson|JSON\.stringify)\b/,
        `${file} writes JSON past the encoder`,
      );
      for (const call of text.matchAll(/#socket\.send\(([^;]*)\);/g)) {
        assert.match(call[1] ?? '', /\.withSeq\(/, `${file} sends a text the encoder did not write`);
      }
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
