package dev.spool.broker.replication;

import dev.spool.broker.quota.RequestMeter;
import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fixed pool of single-threaded partition workers. Each partition is hashed onto one worker,
 * which is its owner thread: every mutation of the partition's log and replica state runs there
 * (docs/threads.md#partition-workers), so nothing in a {@link Partition} needs a lock. Netty
 * threads and fetchers hand tasks over and never block on disk.
 *
 * <p>Limits: each worker's queue holds at most {@code maxQueuedTasksPerWorker} tasks; beyond it a
 * task is refused ({@link #execute} returns false, {@link #submit} fails with {@link
 * RejectedExecutionException}) and the caller answers with an error instead of queueing without
 * bound. A ticker thread posts a periodic tick to every worker.
 */
public final class PartitionWorkers implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PartitionWorkers.class);

  private final List<ThreadPoolExecutor> workers = new ArrayList<>();
  private final ScheduledExecutorService ticker;
  private volatile boolean closed;

  public PartitionWorkers(int threadCount, int maxQueuedTasksPerWorker, String namePrefix) {
    int n = threadCount <= 0 ? Runtime.getRuntime().availableProcessors() : threadCount;
    for (int i = 0; i < n; i++) {
      String name = namePrefix + "-" + i;
      ThreadPoolExecutor w =
          new ThreadPoolExecutor(
              1,
              1,
              0,
              TimeUnit.MILLISECONDS,
              new ArrayBlockingQueue<>(maxQueuedTasksPerWorker),
              r -> {
                Thread t = new Thread(r, name);
                t.setDaemon(true);
                return t;
              });
      w.prestartAllCoreThreads();
      workers.add(w);
    }
    ticker =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, namePrefix + "-ticker");
              t.setDaemon(true);
              return t;
            });
  }

  public int size() {
    return workers.size();
  }

  /** The worker that owns {@code tp}. */
  public int workerFor(TopicPartition tp) {
    return Math.floorMod(tp.hashCode(), workers.size());
  }

  /** Queues {@code task} on the owner of {@code tp}; false when the queue is full or closed. */
  public boolean execute(TopicPartition tp, Runnable task) {
    return executeOn(workerFor(tp), task);
  }

  /** Queues {@code task} on worker {@code worker}; false when its queue is full or closed. */
  public boolean executeOn(int worker, Runnable task) {
    if (closed) {
      return false;
    }
    // The request this thread works for, if its client has a request quota: the task's time is
    // its (docs/threads.md#partition-workers).
    RequestMeter meter = RequestMeter.current();
    try {
      workers
          .get(worker)
          .execute(
              () -> {
                if (meter == null) {
                  run(task);
                } else {
                  RequestMeter previous = RequestMeter.enter(meter);
                  long start = System.nanoTime();
                  try {
                    run(task);
                  } finally {
                    meter.addNanos(System.nanoTime() - start);
                    RequestMeter.exit(previous);
                  }
                }
              });
      return true;
    } catch (RejectedExecutionException e) {
      return false;
    }
  }

  private static void run(Runnable task) {
    try {
      task.run();
    } catch (RuntimeException e) {
      log.error("partition task failed on {}", Thread.currentThread().getName(), e);
    }
  }

  /** Runs {@code task} on the owner of {@code tp}; the future fails when it cannot be queued. */
  public <T> CompletableFuture<T> submit(TopicPartition tp, Supplier<T> task) {
    CompletableFuture<T> f = new CompletableFuture<>();
    boolean queued =
        execute(
            tp,
            () -> {
              try {
                f.complete(task.get());
              } catch (RuntimeException e) {
                f.completeExceptionally(e);
                throw e;
              }
            });
    if (!queued) {
      f.completeExceptionally(
          new RejectedExecutionException(
              "the partition worker of " + tp + " has " + (closed ? "stopped" : "a full queue")));
    }
    return f;
  }

  /**
   * Every {@code intervalMs}, runs {@code tick(worker)} on each worker (skipped while it is full).
   */
  public void startTicks(long intervalMs, IntConsumer tick) {
    ticker.scheduleWithFixedDelay(
        () -> {
          for (int i = 0; i < workers.size(); i++) {
            int worker = i;
            if (workers.get(i).getQueue().size() < 1000) {
              executeOn(i, () -> tick.accept(worker));
            }
          }
        },
        intervalMs,
        intervalMs,
        TimeUnit.MILLISECONDS);
  }

  /** Stops taking tasks, lets queued ones finish (bounded wait), stops the threads. */
  @Override
  public void close() {
    closed = true;
    ticker.shutdownNow();
    for (ThreadPoolExecutor w : workers) {
      w.shutdown();
    }
    for (ThreadPoolExecutor w : workers) {
      try {
        if (!w.awaitTermination(10, TimeUnit.SECONDS)) {
          log.warn("a partition worker did not finish its queue within 10 s; stopping it");
          w.shutdownNow();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        w.shutdownNow();
      }
    }
  }
}
