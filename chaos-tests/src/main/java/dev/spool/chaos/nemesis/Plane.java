package dev.spool.chaos.nemesis;

/**
 * The two kinds of traffic between nodes. Each node has one IP address per plane (see {@code
 * dev.spool.chaos.net.NetNamespaces}), so a partition can cut one plane and leave the other: e.g.
 * cut replication from a partition leader to its followers while the Ratis quorum still talks.
 */
public enum Plane {
  /** Client and replication traffic: the broker listener. */
  DATA,
  /** The metadata quorum: Ratis gRPC and the controller's RPCs. */
  QUORUM
}
