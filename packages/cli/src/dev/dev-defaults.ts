/**
 * The dev command's defaults, apart from dev-venue.ts so that declaring the command loads no server
 * code. A test checks DEV_LOG_LEVELS against the server's own list.
 */
export const DEFAULT_CHAIN_PORT = 8899;

/** The files a venue writes for its clients (dev: in --state-dir; serve: in its public directory). */
export const ACCOUNTS_FILE_NAME = 'dev-accounts.json';
export const PLATFORM_FILE_NAME = 'platform-root.json';
export const CERT_FILE_NAME = 'venue-cert.pem';

export const DEV_LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'silent'] as const;
export type DevLogLevel = (typeof DEV_LOG_LEVELS)[number];
