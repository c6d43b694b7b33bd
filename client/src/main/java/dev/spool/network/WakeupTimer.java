package dev.spool.network;

import dev.spool.common.Clock;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One pending wake-up of an event-loop task at the earliest time asked for: asking for a later time
 * than the one armed changes nothing, an earlier one re-arms. Event-loop thread only.
 */
public final class WakeupTimer {
  private final EventLoop loop;
  private final Clock clock;
  private final Runnable task;
  private ScheduledFuture<?> timer;
  private long atMs = Long.MAX_VALUE;

  public WakeupTimer(EventLoop loop, Clock clock, Runnable task) {
    this.loop = loop;
    this.clock = clock;
    this.task = task;
  }

  /** Runs the task at {@code atMs} (monotonic ms) unless a wake-up at or before it is armed. */
  public void wakeAt(long atMs) {
    if (timer != null && !timer.isDone() && this.atMs <= atMs) {
      return;
    }
    cancel();
    this.atMs = atMs;
    timer =
        loop.schedule(
            () -> {
              this.atMs = Long.MAX_VALUE;
              task.run();
            },
            Math.max(1, atMs - clock.monotonicMs()),
            TimeUnit.MILLISECONDS);
  }

  public void cancel() {
    if (timer != null) {
      timer.cancel(false);
    }
  }
}
