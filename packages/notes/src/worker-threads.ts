import { Worker } from 'node:worker_threads';

/**
 * Starts a worker thread running a module of this package (the proof verifier's and the
 * match prover's pools).
 *
 * The workspace runs TypeScript through tsx with no build step, but on Node 20 a worker thread does
 * not inherit the tsx loader hooks of its parent. The worker therefore starts from a tiny script
 * that registers tsx in the worker, then imports the entry module.
 *
 * ffjavascript imports the `web-worker` package, which, when loaded in any thread other than the
 * main one, believes it is running its own worker and reads `workerData.mod` as the module to load.
 * Giving it an empty module lets ffjavascript load inside our worker; the curves built there are
 * single-threaded and start no workers of their own.
 */
export function startTsWorker(entry: URL, name: string): Worker {
  const workerData = { mod: 'data:text/javascript,', type: 'module', name };
  // Built (dist/*.js, an installed package): the entry was compiled too and runs with no loader.
  if (import.meta.url.endsWith('.js')) {
    return new Worker(new URL(entry.href.replace(/\.ts$/, '.js')), { workerData });
  }
  const tsx = import.meta.resolve('tsx/esm/api');
  const source = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(source, { eval: true, workerData });
}
