package dev.spool.coordinator.group.core;

/**
 * Timers a shard asks for (session and rebalance timeouts). Keyed: scheduling a key again replaces
 * the earlier timer. The runtime runs a fired task on the shard's thread as an operation of its own
 * (its records are written like a request's).
 */
public interface CoordinatorTimers {
  void schedule(String key, long delayMs, Runnable task);

  void cancel(String key);
}
