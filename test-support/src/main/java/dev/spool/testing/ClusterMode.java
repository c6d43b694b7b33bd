package dev.spool.testing;

/** How a {@link SpoolClusterTest} runs its nodes. */
public enum ClusterMode {
  /**
   * Every node inside the test's JVM ({@link dev.spool.testing.inprocess.InProcessCluster}): starts
   * in a second or two, and the test can reach into the brokers. The default.
   */
  IN_PROCESS,
  /**
   * Every node its own JVM ({@link dev.spool.testing.process.ProcessCluster}): real crashes
   * (SIGKILL), pauses (SIGSTOP) and crash recovery, node logs in files. Each node takes a few
   * seconds to start and 256 MB of heap at most.
   */
  PROCESS
}
