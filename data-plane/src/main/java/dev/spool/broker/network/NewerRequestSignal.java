package dev.spool.broker.network;

import java.util.concurrent.atomic.AtomicReference;

/**
 * Tells a request that a newer one arrived on its connection. Answers go out in request order, so a
 * request that waits on purpose (a fetch in long poll) holds back every answer behind it: a
 * consumer whose fetch of caught-up partitions long-polls could not get the data of its other
 * partitions for up to {@code max_wait_ms}. A handler that waits registers a hook here and, when it
 * runs, answers with what it has instead of waiting out its time.
 *
 * <p>Threads: {@link #fire} on the connection's event loop; {@link #onNewerRequest} from any
 * thread. The hook runs at most once, on whichever thread completes the pair.
 */
public final class NewerRequestSignal {
  private final AtomicReference<Runnable> hook = new AtomicReference<>();
  private volatile boolean fired;

  /** Runs {@code hook} once a newer request has arrived (now, if one already has). */
  public void onNewerRequest(Runnable hook) {
    this.hook.set(hook);
    if (fired) {
      runHook();
    }
  }

  /** Whether a newer request has arrived on the connection. */
  public boolean fired() {
    return fired;
  }

  void fire() {
    if (!fired) {
      fired = true;
      runHook();
    }
  }

  private void runHook() {
    Runnable h = hook.getAndSet(null);
    if (h != null) {
      h.run();
    }
  }
}
