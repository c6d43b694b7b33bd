package dev.spool.testing;

import java.net.InetSocketAddress;
import java.nio.file.Path;

/**
 * One node of a {@link SpoolCluster}. A stopped node starts again with the same ports and data
 * directory. Thread-safe, like its cluster.
 */
public interface ClusterNode {
  int id();

  boolean isBroker();

  boolean isController();

  /** Where its broker listens (the same across restarts). */
  InetSocketAddress brokerAddress();

  /** Its data directory (partition logs, checkpoints, the metadata log). */
  Path dataDir();

  boolean isRunning();

  /** Starts it again on its old data; no-op while it runs. */
  void start();

  /**
   * Stops it on purpose: a controlled shutdown first (its leaderships move away), then a clean
   * close. Waits until it is down.
   */
  void stop();

  /**
   * Stops it abruptly, without a controlled shutdown. A node process gets SIGKILL; an in-process
   * node closes its components without a controlled shutdown (its files are still closed cleanly:
   * for crash recovery, use process mode).
   */
  void kill();

  /** {@link #stop()}, then {@link #start()}. */
  default void restart() {
    stop();
    start();
  }
}
