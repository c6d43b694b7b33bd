package dev.spool.chaos.nemesis;

/** Groups of faults a run can enable or disable together (the {@code --nemesis} option). */
public enum NemesisFamily {
  /** SIGKILL a node, restart it on heal. */
  KILL,
  /** SIGSTOP a node for longer than the session timeout, SIGCONT on heal. */
  PAUSE,
  /** IP-level partitions between node namespaces; needs root. */
  PARTITION,
  /** Corrupt a file of a stopped node: torn or bit-flipped segment or checkpoint tail. */
  DISK,
  /** Stop and restart every node. */
  RESTART,
  /** Faults on client links through the fault-injecting proxy: latency, slow link, resets. */
  PROXY,
  /**
   * Faults that come and go every second or so: a node's links cut and healed in turn, a node
   * stopped for 1 s of every 3. They must not make leadership ping-pong.
   */
  FLAP;

  /** True if this family needs root (network namespaces). */
  public boolean needsRoot() {
    return this == PARTITION || this == FLAP;
  }
}
