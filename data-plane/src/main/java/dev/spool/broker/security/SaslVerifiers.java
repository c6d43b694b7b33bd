package dev.spool.broker.security;

import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Where the costly per-attempt key derivation of a SASL login runs (PLAIN: the salted password of
 * the received password, the credential's 4096 to 16384 iterations of HMAC, 1.5 to 17 ms), off the
 * Netty event loops, so a burst of logins does not stall the produce and fetch traffic of the other
 * connections of a loop (docs/threads.md#sasl-verifiers). Owned by the broker and closed with it.
 *
 * <p>Limits: {@code threads} threads and one queue of {@code queueCapacity} waiting derivations
 * over all connections; beyond it {@link #submit} refuses at once (the future fails with {@link
 * RejectedExecutionException}) and the caller refuses the login, so a client that loops on logins
 * costs at most these threads and this queue, never unbounded memory or the event loops' time.
 *
 * <p>Threads: {@link #submit} from any thread (the event loops); the work runs on {@code
 * sasl-verify-<id>-<n>} and only computes: what it finds goes back through the future, and the
 * caller hops to its own thread before changing any state.
 */
public final class SaslVerifiers implements AutoCloseable {
  /** Threads by default: half the cores, at least 1 and at most 4. */
  public static final int DEFAULT_THREADS =
      Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors() / 2));

  /** Derivations waiting for a thread, over all connections, before logins are refused. */
  public static final int DEFAULT_QUEUE_CAPACITY = 64;

  private final ThreadPoolExecutor executor;
  private final int queueCapacity;

  /**
   * @param namePrefix the threads are named {@code namePrefix-<n>} ({@code sasl-verify-<id>})
   */
  public SaslVerifiers(String namePrefix, int threads, int queueCapacity) {
    if (threads < 1 || queueCapacity < 1) {
      throw new IllegalArgumentException(
          "threads and queue capacity must be positive: " + threads + ", " + queueCapacity);
    }
    this.queueCapacity = queueCapacity;
    AtomicInteger n = new AtomicInteger();
    this.executor =
        new ThreadPoolExecutor(
            threads,
            threads,
            0,
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(queueCapacity),
            r -> {
              Thread t = new Thread(r, namePrefix + "-" + n.getAndIncrement());
              t.setDaemon(true);
              return t;
            },
            new ThreadPoolExecutor.AbortPolicy());
  }

  /**
   * The broker's verifiers: {@link #DEFAULT_THREADS} threads named {@code sasl-verify-<id>-<n>}.
   */
  public static SaslVerifiers forBroker(int brokerId) {
    return new SaslVerifiers("sasl-verify-" + brokerId, DEFAULT_THREADS, DEFAULT_QUEUE_CAPACITY);
  }

  /**
   * Runs {@code work} on a verifier thread. The future completes there with its result (or its
   * exception); it fails at once with {@link RejectedExecutionException} when the queue is full or
   * the verifiers are closed, and with the same exception for work still queued at {@link #close}.
   * Cancelling the future (its connection closed) takes queued work out of the queue at once, so
   * logins of connections that are gone never hold the places of live ones; work already running
   * finishes and its result is dropped.
   */
  public <T> CompletableFuture<T> submit(Supplier<T> work) {
    Task<T> task = new Task<>(work);
    task.result.whenComplete(
        (v, e) -> {
          if (task.result.isCancelled()) {
            executor.remove(task);
          }
        });
    try {
      executor.execute(task);
    } catch (RejectedExecutionException e) {
      return CompletableFuture.failedFuture(
          new RejectedExecutionException(
              executor.isShutdown()
                  ? "the broker is stopping"
                  : queueCapacity + " logins already wait for key derivation"));
    }
    return task.result;
  }

  /** Stops the threads; queued work is not run, its futures fail. */
  @Override
  public void close() {
    List<Runnable> queued = executor.shutdownNow();
    for (Runnable r : queued) {
      if (r instanceof Task<?> t) {
        t.result.completeExceptionally(new RejectedExecutionException("the broker is stopping"));
      }
    }
  }

  private static final class Task<T> implements Runnable {
    final Supplier<T> work;
    final CompletableFuture<T> result = new CompletableFuture<>();

    Task(Supplier<T> work) {
      this.work = work;
    }

    @Override
    public void run() {
      if (result.isDone()) {
        return; // cancelled while it waited
      }
      try {
        result.complete(work.get());
      } catch (RuntimeException | Error e) {
        result.completeExceptionally(e);
      }
    }
  }
}
