package dev.spool.chaos.nemesis;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/** Client-link faults through the fault proxies: latency, a slow link, connection drops. */
public final class ClientLinkNemesis implements Nemesis {
  static final long DEFAULT_LATENCY_MS = 200;
  static final long DEFAULT_BYTES_PER_SECOND = 64 * 1024;

  private final ClientLinkControl links;
  private boolean active;

  public ClientLinkNemesis(ClientLinkControl links) {
    this.links = links;
  }

  @Override
  public Set<FaultKind> kinds() {
    return EnumSet.of(
        FaultKind.CLIENT_LATENCY, FaultKind.CLIENT_SLOW_LINK, FaultKind.CLIENT_CONNECTION_DROP);
  }

  @Override
  public Applied start(PlannedFault fault) {
    if (active) {
      throw new IllegalStateException("a client-link fault is already active");
    }
    String note;
    switch (fault.kind()) {
      case CLIENT_LATENCY -> {
        long ms = fault.param("latencyMs", DEFAULT_LATENCY_MS);
        links.addLatency(ms);
        note = "+" + ms + " ms each way";
      }
      case CLIENT_SLOW_LINK -> {
        long bps = fault.param("bytesPerSecond", DEFAULT_BYTES_PER_SECOND);
        links.limitBandwidth(bps);
        note = bps + " bytes/s each way";
      }
      case CLIENT_CONNECTION_DROP -> {
        links.dropConnections();
        note = "open connections reset, new ones refused";
      }
      default -> throw new IllegalArgumentException("not a client-link fault: " + fault.kind());
    }
    active = true;
    return new Applied(List.of("client links"), note);
  }

  @Override
  public void heal() {
    if (active) {
      links.heal();
      active = false;
    }
  }
}
