package dev.spool.chaos.nemesis;

/**
 * IP-level faults between nodes. Implemented by {@code dev.spool.chaos.net.NetNamespaces}
 * (blackhole routes inside each node's network namespace).
 */
public interface NetworkControl {
  /**
   * From now on, packets that node {@code from} sends to {@code to}'s address on {@code plane} are
   * dropped. Packets from {@code to} to {@code from} are not affected: call again with the
   * arguments swapped to cut both directions.
   */
  void drop(int from, int to, Plane plane);

  /** Removes every drop this control added. */
  void healAll();
}
