package dev.spool.chaos.nemesis;

/** Every fault the nemesis can inject, each in one {@link NemesisFamily}. */
public enum FaultKind {
  /** SIGKILL the target node; restart it on heal. */
  KILL(NemesisFamily.KILL, "kill -9"),
  /** SIGSTOP the target node; SIGCONT on heal (window longer than the session timeout). */
  PAUSE(NemesisFamily.PAUSE, "pause"),
  /** Cut one node off from every other node, both directions. */
  ISOLATE_NODE(NemesisFamily.PARTITION, "isolate"),
  /** Split the nodes into a majority and a minority that cannot talk. */
  SPLIT_MAJORITY_MINORITY(NemesisFamily.PARTITION, "split"),
  /** Cut the active controller off from the brokers (but not from the other controllers). */
  ISOLATE_CONTROLLER_FROM_BROKERS(NemesisFamily.PARTITION, "isolate controller"),
  /** Cut a partition's leader off from its followers, but not from the quorum. */
  ISOLATE_LEADER_FROM_FOLLOWERS(NemesisFamily.PARTITION, "isolate leader"),
  /** Drop packets from one node to another, one direction only. */
  ONE_WAY_LOSS(NemesisFamily.PARTITION, "one-way loss"),
  /** Add latency on client links (proxy). */
  CLIENT_LATENCY(NemesisFamily.PROXY, "client latency"),
  /** Limit client links' bandwidth (proxy). */
  CLIENT_SLOW_LINK(NemesisFamily.PROXY, "slow link"),
  /** Reset client connections mid-stream and refuse new ones for the window (proxy). */
  CLIENT_CONNECTION_DROP(NemesisFamily.PROXY, "connection drop"),
  /** Stop a node, cut its newest segment mid-batch, restart on heal. */
  TORN_SEGMENT_TAIL(NemesisFamily.DISK, "torn segment"),
  /** Stop a node, flip one bit near the end of its newest segment, restart on heal. */
  BITFLIP_SEGMENT_TAIL(NemesisFamily.DISK, "bit-flip segment"),
  /** Stop a node, cut a checkpoint file short, restart on heal. */
  TORN_CHECKPOINT(NemesisFamily.DISK, "torn checkpoint"),
  /** Stop a node, flip one bit of a checkpoint file, restart on heal. */
  BITFLIP_CHECKPOINT(NemesisFamily.DISK, "bit-flip checkpoint"),
  /** SIGKILL every node, restart them all on heal. */
  FULL_RESTART(NemesisFamily.RESTART, "full restart"),
  /**
   * Cut one node off from every other node and heal it, in turn, for the window ({@code cutMs} cut,
   * {@code healedMs} healed; 1 s each unless the fault says otherwise).
   */
  FLAPPING_LINK(NemesisFamily.FLAP, "flapping link"),
  /**
   * A node slow but not dead: SIGSTOP for {@code stopMs} out of every {@code stopMs + runMs} (1 s
   * of every 3 unless the fault says otherwise), SIGCONT on heal.
   */
  INTERMITTENT_PAUSE(NemesisFamily.FLAP, "intermittent pause");

  private final NemesisFamily family;
  private final String label;

  FaultKind(NemesisFamily family, String label) {
    this.family = family;
    this.label = label;
  }

  public NemesisFamily family() {
    return family;
  }

  /** Short text for the report's plot. */
  public String label() {
    return label;
  }
}
