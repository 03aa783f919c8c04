/** One import per user at a time: a second one of the same user is refused, another user's runs. */
import { describe, expect, it } from 'vitest';
import { errno } from '../../../contract/errno.ts';
import { AppError } from '../../http/errors.ts';
import { withImportSlot } from './importSlots.ts';

/** A promise and the function that settles it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((done) => {
    open = done;
  });
  return { open, opened };
}

describe('import slots', () => {
  it("refuses a user's second import while the first runs, not another user's", async () => {
    const first = gate();
    const running = withImportSlot(1, async () => {
      await first.opened;
      return 'first';
    });
    await expect(withImportSlot(1, async () => 'second')).rejects.toEqual(
      new AppError(errno.statementImportRunning, null, 'user 1'),
    );
    expect(await withImportSlot(2, async () => 'other user')).toBe('other user');
    first.open();
    expect(await running).toBe('first');
    expect(await withImportSlot(1, async () => 'after')).toBe('after');
  });

  it('frees the slot when the import fails', async () => {
    await expect(
      withImportSlot(3, async () => {
        throw new Error('unreadable');
      }),
    ).rejects.toThrow('unreadable');
    expect(await withImportSlot(3, async () => 'again')).toBe('again');
  });

  it('refuses before the second import starts', async () => {
    const first = gate();
    const running = withImportSlot(4, () => first.opened);
    let started = false;
    await withImportSlot(4, async () => {
      started = true;
    }).catch((err: AppError) => expect(err.errno).toBe(errno.statementImportRunning));
    expect(started).toBe(false);
    first.open();
    await running;
  });
});
