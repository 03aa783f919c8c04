import { atom } from 'nanostores';

/** Bumped to re-mount the current view (tab refresh, size change): views are not cached. */
export const $viewKey = atom(0);
