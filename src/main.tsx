import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import { loadUser } from './lib/auth.ts';
import { loadLanguage } from './lib/i18n.ts';
import { $sessionState } from './lib/session.ts';
import { $settings, loadSidebar } from './lib/settings.ts';
import { catchPaletteKeysBeforeShell } from './shell/paletteState.ts';
import './styles.css';

async function start(): Promise<void> {
  const settings = $settings.get();
  document.documentElement.dataset.size = settings.size;
  loadSidebar();
  catchPaletteKeysBeforeShell(() => $sessionState.get() === 'signedIn');
  await loadLanguage(settings.language);
  void loadUser();
  const root = document.getElementById('root');
  if (!root) throw new Error('index.html has no #root');
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}

void start();
