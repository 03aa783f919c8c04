import { useStore } from '@nanostores/react';
import { type ComponentType, lazy, Suspense, useMemo } from 'react';
import type { DialogLoader } from '../../commands/index.ts';
import { $dialogs, closeDialog } from './runtime.ts';

const cache = new Map<DialogLoader<object>, ComponentType<Record<string, unknown>>>();

function component(load: DialogLoader<object>): ComponentType<Record<string, unknown>> {
  let found = cache.get(load);
  if (!found) {
    found = lazy(load as () => Promise<{ default: ComponentType<Record<string, unknown>> }>);
    cache.set(load, found);
  }
  return found;
}

/** Renders the dialogs that commands open, each loaded on first use. */
export function DialogHost() {
  const dialogs = useStore($dialogs);
  const views = useMemo(
    () =>
      dialogs.map((d) => {
        const Component = component(d.load);
        return (
          <Component
            key={d.id}
            {...(d.props as Record<string, unknown>)}
            close={(r?: unknown) => closeDialog(d.id, r)}
          />
        );
      }),
    [dialogs],
  );
  return <Suspense fallback={null}>{views}</Suspense>;
}
