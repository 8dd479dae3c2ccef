/** scripts/build-packages.mjs: the published packages, built to dist/ in dependency order. */
export const PUBLISHED_PACKAGES: readonly string[];
export function buildPackages(): void;
