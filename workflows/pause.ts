// Pausing a running export (docs/api.md#post-v1taskstask_idpause): the `pause` update, accepted while the export has not
// started rendering, cancels the fetch lanes (each stops after the page in flight; what it stored
// stays staged). The workflow then marks the task paused, freeing its slot, and the run ends; a
// resume is a new run that fetches only the pages still missing.
import { CancellationScope, condition, defineUpdate, isCancellation, setHandler } from '@temporalio/workflow';
import type { PauseResult } from '../model/activities.js';

export const pauseUpdate = defineUpdate<PauseResult>('pause');

/** The reason an invalid pause is refused; the API answers it with 409 task_not_pausable. */
export const NOT_PAUSABLE = 'the export has finished fetching and is rendering its file; it cannot be paused now';

export class PauseControl {
  private fetching = true;
  private requested = false;
  private ended = false;
  private scope: CancellationScope | undefined;
  private readonly root = CancellationScope.current();

  constructor() {
    setHandler(
      pauseUpdate,
      async () => {
        this.requested = true;
        this.scope?.cancel();
        await condition(() => this.ended);
        return { pagesStaged: true };
      },
      {
        validator: () => {
          if (this.requested) throw new Error('the export is already pausing');
          if (!this.fetching) throw new Error(NOT_PAUSABLE);
        },
      },
    );
  }

  get pauseRequested(): boolean {
    return this.requested;
  }

  /** Runs the fetch; 'paused' when a pause stopped it (or came in just as it ended). */
  async fetch(run: () => Promise<void>): Promise<'done' | 'paused'> {
    // Paused while the run was still starting: nothing to stop.
    if (this.requested) return 'paused';
    this.scope = new CancellationScope();
    try {
      await this.scope.run(run);
    } catch (err) {
      if (!(this.requested && isCancellation(err) && !this.root.consideredCancelled)) throw err;
    }
    if (!this.requested) this.fetching = false;
    return this.requested ? 'paused' : 'done';
  }

  /** The task is marked paused: the update answers. */
  paused(): void {
    this.ended = true;
  }
}
