package dev.spool.broker.quota;

import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * The thread time of one request whose client has a {@code request_percentage} quota
 * (docs/security.md#quotas), recorded into that quota's rate as it is spent: the handler's time on
 * the event loop ({@link #serve}) and the time of every partition-worker task queued while this
 * meter is current on the queueing thread ({@code PartitionWorkers} carries it to the task, and the
 * task's own hand-offs carry it on). Made by {@link ClientQuotaManager#requestMeter} only for a
 * client a request quota applies to, so requests of other clients cost one thread-local read per
 * hand-off and nothing else.
 *
 * <p>Threads: the time is added from any thread (the rate is locked); which meter is current is a
 * per-thread value, set around the work that runs for the request.
 */
public final class RequestMeter {
  private static final ThreadLocal<RequestMeter> CURRENT = new ThreadLocal<>();

  private final ClientQuotaManager quotas;
  final QuotaRate rate;
  final double percent;
  // Set on the event loop while the request is served (a replica's fetch); read by workers.
  private volatile boolean exempt;

  RequestMeter(ClientQuotaManager quotas, QuotaRate rate, double percent) {
    this.quotas = quotas;
    this.rate = rate;
    this.percent = percent;
  }

  /** The meter of the request this thread works for now, or null. */
  public static RequestMeter current() {
    return CURRENT.get();
  }

  /**
   * Makes {@code meter} current on this thread and answers the one it replaces, for {@link #exit}.
   */
  public static RequestMeter enter(RequestMeter meter) {
    RequestMeter previous = CURRENT.get();
    CURRENT.set(meter);
    return previous;
  }

  /** Makes {@code previous} (what {@link #enter} answered) current again. */
  public static void exit(RequestMeter previous) {
    if (previous == null) {
      CURRENT.remove();
    } else {
      CURRENT.set(previous);
    }
  }

  /**
   * The request this thread serves is exempt from request quotas (a replica's fetch, Kafka's
   * follower fetch): nothing of it is recorded and it is never throttled.
   */
  public static void exemptCurrent() {
    RequestMeter m = CURRENT.get();
    if (m != null) {
      m.exempt = true;
    }
  }

  /** Whether the request turned out exempt. */
  public boolean exempt() {
    return exempt;
  }

  /** Adds {@code nanos} of thread time spent for the request. */
  public void addNanos(long nanos) {
    if (!exempt && nanos > 0) {
      quotas.recordRequestNanos(this, nanos);
    }
  }

  /** The request quota's throttle time as the rate is now (0 within the quota or exempt). */
  public long throttleMs() {
    return exempt ? 0 : quotas.requestThrottleMs(this);
  }

  /**
   * Serves a request under this meter: runs {@code serve} with the meter current, records its time
   * plus {@code earlierNanos} (work already done for the request on this thread, such as decoding
   * it), and throttles the answer when the request quota is exceeded by then: the answer's throttle
   * becomes the larger of its own (byte rates) and the request quota's, as Kafka answers the larger
   * of the throttles that apply.
   *
   * @param throttleOf the throttle an answer already carries
   * @param throttled the answer with another throttle time
   */
  public <A> CompletableFuture<A> serve(
      long earlierNanos,
      Supplier<CompletableFuture<A>> serve,
      ToLongFunction<A> throttleOf,
      BiFunction<A, Long, A> throttled) {
    RequestMeter previous = enter(this);
    long start = System.nanoTime();
    CompletableFuture<A> answer;
    try {
      answer = serve.get();
    } finally {
      addNanos(earlierNanos + System.nanoTime() - start);
      exit(previous);
    }
    return answer.thenApply(
        a -> {
          long ms = throttleMs();
          return ms > throttleOf.applyAsLong(a) ? throttled.apply(a, ms) : a;
        });
  }
}
