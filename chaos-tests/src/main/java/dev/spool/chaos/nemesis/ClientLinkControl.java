package dev.spool.chaos.nemesis;

/**
 * Faults on the clients' links to the brokers, through fault-injecting TCP proxies. Implemented by
 * {@code dev.spool.chaos.net.ProxyGroup}.
 */
public interface ClientLinkControl {
  /** Delays every chunk of bytes by {@code latencyMs}, in each direction. */
  void addLatency(long latencyMs);

  /** Limits each direction of each connection to {@code bytesPerSecond}. */
  void limitBandwidth(long bytesPerSecond);

  /** Resets every open connection mid-stream and refuses new ones until {@link #heal()}. */
  void dropConnections();

  /** Removes every fault. */
  void heal();
}
