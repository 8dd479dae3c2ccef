/**
 * What makes slots pass. Tests drive a manual chain by calling `advance()`; a running simulator
 * uses the wall driver, one tick per slot length. The timer is unref'd so that a forgotten
 * simulator never keeps a process alive.
 */
export interface SlotDriver {
  start(tick: () => void): void;
  stop(): void;
}

export function manualSlots(): SlotDriver {
  return { start: () => {}, stop: () => {} };
}

export function wallSlots(slotMs: number): SlotDriver {
  let timer: NodeJS.Timeout | undefined;
  return {
    start(tick) {
      if (timer !== undefined) return;
      timer = setInterval(tick, slotMs);
      timer.unref();
    },
    stop() {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
    },
  };
}
