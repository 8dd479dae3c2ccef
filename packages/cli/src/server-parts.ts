import { CliError } from './commands/output.ts';

/**
 * `venue dev`, `venue serve` and `venue demo` run the venue itself, whose packages (core, adapters,
 * chain simulator) live only in the repository. They are imported when one of those commands runs,
 * never at start-up: the client commands of the published CLI work without them, and `venue
 * --version` or `--help` does not pay for loading a server.
 */
export async function loadServerPart<T>(load: () => Promise<T>, command: string): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' && /@venue\/(adapters|core|chain-sim)/.test(String(error))) {
      throw new CliError(
        `venue ${command} runs the venue itself, which is not part of the installed CLI: run it from a ` +
          'checkout of the venue repository (npm ci, then npm start there) and point this CLI at it with --venue',
      );
    }
    throw error;
  }
}
