/**
 * The operator console's cold load in Debian's Chromium (playwright-core), on a venue with 10
 * markets and 10,000 resting orders (issue 23 asks for under 1 s to first render). Each run is a
 * fresh browser context (no cache, no session) against the same venue:
 *   - page: navigation start to the sign-in form rendered (GET /console/, its script and styles);
 *   - first render: submitting admin credentials to the dashboard rendered with every market
 *     (POST /auth/token, then the first poll of the admin and public reads the page shows).
 * Both are the page's own performance marks. Baseline, in the same run and browser: navigation to
 * GET /health of the same HTTPS server, a trivial JSON page, so the ratio says what the console
 * costs beyond reaching the venue at all. The first run (which also pays the admin's one scrypt
 * login of the boot, and the browser's warm-up) is discarded.
 */
import { launchChromium } from '@venue/testing/browser';
import { measureConsoleLoad, startLoadedVenue } from '@venue/testing/console-load';
import { ensureConsoleBuilt } from '../scripts/build-console.mjs';
import { type Figure, figure, summarise } from './harness.ts';

export async function run(quick: boolean): Promise<Figure[]> {
  await ensureConsoleBuilt();
  const runs = quick ? 3 : 9;
  const loaded = await startLoadedVenue();
  const browser = await launchChromium();
  try {
    const page: number[] = [];
    const render: number[] = [];
    const trivial: number[] = [];
    for (let i = 0; i <= runs; i += 1) {
      const times = await measureConsoleLoad(browser, loaded);
      if (i === 0) continue;
      page.push(times.pageLoadMs);
      render.push(times.firstRenderMs);
      trivial.push(times.trivialPageMs);
    }
    const baseline = {
      name: 'GET /health page load, same browser',
      value: Math.round(summarise(trivial).median * 10) / 10,
    };
    return [
      figure(
        'console-load',
        'GET /console/ to sign-in form (10 markets, 10k resting)',
        'ms',
        'lower',
        summarise(page),
        baseline,
      ),
      figure(
        'console-load',
        'sign-in to dashboard first render (10 markets, 10k resting)',
        'ms',
        'lower',
        summarise(render),
        baseline,
      ),
    ];
  } finally {
    await browser.close();
    await loaded.venue.stop();
  }
}
