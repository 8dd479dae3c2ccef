export * from './metrics-listener.ts';
export * from './scraped-metrics.ts';
export * from './timed-checks.ts';
export * from './venue-logger.ts';
export * from './venue-metrics.ts';
