export declare const CONSOLE_DIR: string;
export declare const CONSOLE_DIST: string;
export declare function consoleSourceHash(): string;
export declare function ensureConsoleBuilt(options?: { force?: boolean }): Promise<boolean>;
