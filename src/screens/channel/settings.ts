/** The simulator's settings as the channel row carries them (a free-form record on the wire). */
export interface SimulatorSettings {
  auto: boolean;
  successRate: number;
  delayMs: number;
  lostCallbackRate: number;
}

const num = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);

/** Reads the settings with the server's defaults for what is missing (`server/channels/simulator.ts`). */
export function simulatorSettingsOf(settings: Record<string, unknown>): SimulatorSettings {
  return {
    auto: settings.auto === true,
    successRate: num(settings.successRate, 90),
    delayMs: num(settings.delayMs, 2000),
    lostCallbackRate: num(settings.lostCallbackRate, 0),
  };
}
