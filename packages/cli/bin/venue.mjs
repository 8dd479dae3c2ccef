#!/usr/bin/env node
// In the repository the CLI runs from its TypeScript sources: tsx's loader is registered in this same
// process (so signals reach the venue directly, with no wrapper process between) with the workspace
// tsconfig, whose `paths` point @venue/* at the other packages' sources. An installed copy has no
// src/ and runs the JavaScript that `npm run build` wrote to dist/.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const source = new URL('../src/main.ts', import.meta.url);
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register({ tsconfig: fileURLToPath(new URL('../../../tsconfig.json', import.meta.url)) });
  await import(source.href);
} else {
  await import('../dist/main.js');
}
