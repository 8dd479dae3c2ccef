#!/usr/bin/env node
// The CLI is TypeScript with no build step: register tsx's loader in this same process (so signals
// reach the venue directly, with no wrapper process between), then run the entry point.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
