import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../packages/sdk/test/dev-venue-process.ts';

/**
 * The fenced code blocks of a document, as the docs-run tests read them. A fence written
 * ```sh run or ```ts run is run to its end; ```sh run background starts a process that keeps
 * running (a chain, a publisher, a venue), which the test waits for to print its first line and
 * stops at the end; a plain ```sh or ```ts block is not run.
 */
export interface Block {
  readonly doc: string;
  readonly lang: 'sh' | 'ts';
  readonly run: boolean;
  readonly background: boolean;
  readonly code: string;
  readonly line: number;
}

export function codeBlocks(doc: string): Block[] {
  const text = readFileSync(join(REPO_ROOT, 'docs', doc), 'utf8');
  const blocks: Block[] = [];
  for (const match of text.matchAll(/^```(sh|ts)( run)?( background)?\n([\s\S]*?)^```$/gm)) {
    blocks.push({
      doc,
      lang: match[1] as 'sh' | 'ts',
      run: match[2] !== undefined,
      background: match[3] !== undefined,
      code: match[4] ?? '',
      line: text.slice(0, match.index).split('\n').length,
    });
  }
  return blocks;
}
