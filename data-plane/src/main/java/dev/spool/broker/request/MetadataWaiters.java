package dev.spool.broker.request;

import dev.spool.quorum.image.MetadataImage;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Admin requests forwarded to the quorum answer only once their effect is visible in this broker's
 * own metadata image (so a Metadata call right after sees it), bounded by the request's timeout. A
 * waiter completes with the first image that satisfies its condition, or with the latest image when
 * time runs out (the change is committed either way; it just has not reached this broker yet).
 *
 * <p>Threads: {@link #onUpdate} on the broker lifecycle thread; {@link #await} from Netty threads;
 * timeouts on the shared timer. Limit: at most {@code maxWaiters} waiting; beyond it a waiter
 * completes at once.
 */
public final class MetadataWaiters {
  private record Waiter(
      Predicate<MetadataImage> condition, CompletableFuture<MetadataImage> future) {}

  private final CopyOnWriteArrayList<Waiter> waiters = new CopyOnWriteArrayList<>();
  private final Supplier<MetadataImage> current;
  private final Timer timer;
  private final int maxWaiters;

  public MetadataWaiters(Supplier<MetadataImage> current, Timer timer, int maxWaiters) {
    this.current = current;
    this.timer = timer;
    this.maxWaiters = maxWaiters;
  }

  public CompletableFuture<MetadataImage> await(
      Predicate<MetadataImage> condition, long timeoutMs) {
    MetadataImage now = current.get();
    if (condition.test(now) || timeoutMs <= 0 || waiters.size() >= maxWaiters) {
      return CompletableFuture.completedFuture(now);
    }
    Waiter w = new Waiter(condition, new CompletableFuture<>());
    waiters.add(w);
    Timeout t =
        timer.newTimeout(
            x -> {
              waiters.remove(w);
              w.future().complete(current.get());
            },
            timeoutMs,
            TimeUnit.MILLISECONDS);
    w.future().whenComplete((img, e) -> t.cancel());
    // The image may have moved between the first test and the registration.
    MetadataImage again = current.get();
    if (condition.test(again)) {
      waiters.remove(w);
      w.future().complete(again);
    }
    return w.future();
  }

  public void onUpdate(MetadataImage image) {
    for (Waiter w : waiters) {
      boolean met;
      try {
        met = w.condition().test(image);
      } catch (RuntimeException e) {
        met = true;
      }
      if (met) {
        waiters.remove(w);
        w.future().complete(image);
      }
    }
  }
}
