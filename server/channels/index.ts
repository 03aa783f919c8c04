import type { ChannelAdapter } from './adapter.ts';
import { bankAdapter, bankAdapterName } from './bank.ts';
import { manualBankAdapter, manualBankAdapterName } from './manualBank.ts';
import { simulatorAdapter } from './simulator.ts';

/** Adapters by name (`channels.adapter`); a real provider is one more entry here. */
export const adapters: Record<string, ChannelAdapter> = {
  simulator: simulatorAdapter,
  [manualBankAdapterName]: manualBankAdapter,
  [bankAdapterName]: bankAdapter,
};

export function adapterFor(name: string): ChannelAdapter {
  const adapter = adapters[name];
  if (!adapter) throw new Error(`no channel adapter named ${name}`);
  return adapter;
}
