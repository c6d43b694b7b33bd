package dev.spool.quorum.controller;

import dev.spool.quorum.image.BrokerRegistration;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.RecordChecks;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Broker liveness as seen by the active controller: the last heartbeat of each broker registration
 * (id + epoch), its metadata offset and wishes. Pure (time comes in as {@code nowMs}, a monotonic
 * clock); lives only in the active controller's memory and is empty on a newly elected one.
 *
 * <p>A registration the tracker has not seen yet starts its session when it is first observed
 * ({@link #observe}); since a newly active controller starts empty, every registered broker gets a
 * full session timeout from the controller's activation before it can be fenced, and a new
 * registration gets one from the moment the controller sees it.
 *
 * <p>Confined to the controller thread.
 */
public final class BrokerHeartbeatTracker {
  private final long sessionTimeoutMs;
  private final Map<Integer, Session> sessions = new HashMap<>();

  /** What the tracker knows of one broker registration. */
  public record Session(
      long epoch,
      long lastContactMs,
      long metadataOffset,
      boolean heartbeated,
      boolean wantFence,
      boolean wantShutdown,
      List<String> offlineDirs,
      Set<Integer> unreachableLeaders) {}

  public BrokerHeartbeatTracker(long sessionTimeoutMs) {
    this.sessionTimeoutMs = sessionTimeoutMs;
  }

  /** Starts a session for every registration of the image not seen before. */
  public void observe(MetadataImage image, long nowMs) {
    for (BrokerRegistration b : image.brokers().values()) {
      Session s = sessions.get(b.id());
      if (s == null || s.epoch() != b.epoch()) {
        sessions.put(
            b.id(), new Session(b.epoch(), nowMs, -1, false, false, false, List.of(), Set.of()));
      }
    }
    sessions.keySet().removeIf(id -> image.broker(id) == null);
  }

  /**
   * Records a heartbeat of a current registration (the caller checked the epoch), with the data
   * directories the broker reports offline.
   */
  public void heartbeat(
      int brokerId,
      long epoch,
      long metadataOffset,
      boolean wantFence,
      boolean wantShutdown,
      List<String> offlineDirs,
      long nowMs) {
    heartbeat(
        brokerId, epoch, metadataOffset, wantFence, wantShutdown, offlineDirs, Set.of(), nowMs);
  }

  /**
   * Records a heartbeat of a current registration (the caller checked the epoch), with the data
   * directories the broker reports offline and the partition leaders it reports it cannot fetch
   * from (each heartbeat's report replaces the previous one).
   */
  public void heartbeat(
      int brokerId,
      long epoch,
      long metadataOffset,
      boolean wantFence,
      boolean wantShutdown,
      List<String> offlineDirs,
      Set<Integer> unreachableLeaders,
      long nowMs) {
    sessions.put(
        brokerId,
        new Session(
            epoch,
            nowMs,
            metadataOffset,
            true,
            wantFence,
            wantShutdown,
            List.copyOf(offlineDirs),
            Set.copyOf(unreachableLeaders)));
  }

  /**
   * The controller itself was not running for {@code stallMs} (a GC pause, SIGSTOP, an overloaded
   * machine): heartbeats could not be processed meanwhile, so every session is extended by that
   * long instead of fencing brokers for the controller's own silence.
   */
  public void extendSessions(long stallMs) {
    sessions.replaceAll(
        (id, s) ->
            new Session(
                s.epoch(),
                s.lastContactMs() + stallMs,
                s.metadataOffset(),
                s.heartbeated(),
                s.wantFence(),
                s.wantShutdown(),
                s.offlineDirs(),
                s.unreachableLeaders()));
  }

  /**
   * The controller's own isolation: when it tracks a broker other than its own node {@code selfId}
   * and none of them reached it within half the session timeout, the likelier story is that the
   * controller is the one cut off (a flapping or cut link of its node), not that every other broker
   * died at once. Then every session is extended by {@code sinceLastCheckMs}, as for the
   * controller's own stall, so it fences nobody for its own silence. Half, so that the sessions are
   * held before the first of them runs out (heartbeats come every 250 ms, so the others' last
   * contacts differ by about that much). A broker that is really dead expires once another broker
   * is heard again and its own session has run out. Returns whether it extended.
   */
  public boolean forgiveOwnIsolation(int selfId, long nowMs, long sinceLastCheckMs) {
    boolean others = false;
    for (Map.Entry<Integer, Session> e : sessions.entrySet()) {
      if (e.getKey() == selfId) {
        continue;
      }
      others = true;
      if (nowMs - e.getValue().lastContactMs() <= sessionTimeoutMs / 2) {
        return false;
      }
    }
    if (others) {
      extendSessions(sinceLastCheckMs);
    }
    return others;
  }

  /** The registration's session ran out: no heartbeat for longer than the session timeout. */
  public boolean isExpired(BrokerRegistration b, long nowMs) {
    Session s = sessions.get(b.id());
    if (s == null || s.epoch() != b.epoch()) {
      return false; // not observed yet: its session starts now
    }
    return nowMs - s.lastContactMs() > sessionTimeoutMs;
  }

  /**
   * The broker heartbeats in this session, has replayed the metadata up to its own registration and
   * wants to be active: it may be unfenced.
   */
  public boolean mayUnfence(BrokerRegistration b, long nowMs) {
    Session s = sessions.get(b.id());
    return s != null
        && s.epoch() == b.epoch()
        && s.heartbeated()
        && !isExpired(b, nowMs)
        && s.metadataOffset() >= b.epoch()
        && !s.wantFence()
        && !s.wantShutdown();
  }

  public boolean wantsFence(BrokerRegistration b) {
    Session s = sessions.get(b.id());
    return s != null && s.epoch() == b.epoch() && s.wantFence();
  }

  public boolean wantsShutdown(BrokerRegistration b) {
    Session s = sessions.get(b.id());
    return s != null && s.epoch() == b.epoch() && s.wantShutdown();
  }

  /**
   * The data directories this registration's heartbeats report offline that its registration does
   * not record yet (empty when none): the controller records them and repairs the partitions.
   */
  public List<String> newOfflineDirs(BrokerRegistration b) {
    Session s = sessions.get(b.id());
    if (s == null || s.epoch() != b.epoch()) {
      return List.of();
    }
    List<String> fresh =
        s.offlineDirs().stream().filter(d -> !b.offlineDirs().contains(d)).sorted().toList();
    if (fresh.isEmpty()) {
      return fresh;
    }
    List<String> all = new ArrayList<>(b.offlineDirs());
    all.addAll(fresh);
    // A report no record may hold (an empty or overlong name, too many) would be refused by the
    // applier on every tick, again and again: the controller ignores it instead.
    return RecordChecks.validOfflineDirs(all) ? fresh : List.of();
  }

  /**
   * Whether registration {@code b}'s last heartbeat reports that it cannot fetch from broker {@code
   * leader}.
   */
  public boolean reportsUnreachable(BrokerRegistration b, int leader) {
    Session s = sessions.get(b.id());
    return s != null && s.epoch() == b.epoch() && s.unreachableLeaders().contains(leader);
  }

  /** Whether any broker's last heartbeat reports a leader it cannot fetch from. */
  public boolean anyUnreachableReported() {
    for (Session s : sessions.values()) {
      if (!s.unreachableLeaders().isEmpty()) {
        return true;
      }
    }
    return false;
  }
}
