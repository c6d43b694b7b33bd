package dev.spool.bench;

import dev.spool.bench.GroupBenchClients.Ownership;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * What GroupBench knows of its group: who owns each partition, and for the current event (a join or
 * a kill) when each partition's current owner first consumed it since the event. Written by every
 * member thread (through their rebalance listeners and polls) and by the thread reading the joiner
 * JVM's reports, read by the trial thread: every method is synchronized.
 */
final class GroupState {
  /** A trial with no result before its deadline. */
  static final long FAILED = -1;

  private final String[] owner;
  private final long[] firstAfterEvent;
  private long eventStartMs = -1;
  private long commits;
  private long offsetsCommitted;
  private long errors;
  private final List<String> lastErrors = new ArrayList<>();

  // The current event's timeline (ms since the epoch, 0 = not yet), printed with each trial's
  // figure
  // so a slow trial shows which step took the time.
  private long firstRevokeMs;
  private long lastRevokeMs;
  private final Map<String, Long> firstGrantMs = new HashMap<>();

  /** Members known dead: reports of theirs still in a pipe must not give them partitions. */
  private final Set<String> gone = new HashSet<>();

  GroupState(int partitions) {
    owner = new String[partitions];
    firstAfterEvent = new long[partitions];
  }

  Ownership ownership(String member) {
    return new Ownership() {
      @Override
      public void assigned(List<Integer> partitions) {
        GroupState.this.assigned(member, partitions, System.currentTimeMillis());
      }

      @Override
      public void revoked(List<Integer> partitions) {
        GroupState.this.revoked(member, partitions);
      }
    };
  }

  synchronized void assigned(String member, List<Integer> partitions, long atMs) {
    if (gone.contains(member)) {
      return;
    }
    for (int p : partitions) {
      owner[p] = member;
      firstAfterEvent[p] = 0;
    }
    if (eventStartMs >= 0 && !partitions.isEmpty()) {
      firstGrantMs.putIfAbsent(member, atMs);
    }
  }

  synchronized void revoked(String member, List<Integer> partitions) {
    if (eventStartMs >= 0 && !partitions.isEmpty()) {
      long now = System.currentTimeMillis();
      firstRevokeMs = firstRevokeMs == 0 ? now : firstRevokeMs;
      lastRevokeMs = now;
    }
    for (int p : partitions) {
      if (member.equals(owner[p])) {
        owner[p] = null;
        firstAfterEvent[p] = 0;
      }
    }
  }

  /** A member died: its partitions have no live owner until the group gives them to another. */
  synchronized void memberGone(String member) {
    gone.add(member);
    for (int p = 0; p < owner.length; p++) {
      if (member.equals(owner[p])) {
        owner[p] = null;
        firstAfterEvent[p] = 0;
      }
    }
  }

  synchronized void consumed(String member, int partition, long atMs) {
    if (eventStartMs >= 0
        && atMs >= eventStartMs
        && member.equals(owner[partition])
        && firstAfterEvent[partition] == 0) {
      firstAfterEvent[partition] = atMs;
      notifyAll();
    }
  }

  /** The event of a trial happened at {@code atMs}: every partition must be consumed again. */
  synchronized void startEvent(long atMs) {
    eventStartMs = atMs;
    Arrays.fill(firstAfterEvent, 0);
    firstRevokeMs = 0;
    lastRevokeMs = 0;
    firstGrantMs.clear();
    notifyAll();
  }

  /**
   * Waits for the event, then until every partition has an owner that consumed it since the event
   * (and {@code member}, when not null, owns at least {@code share}); returns that moment minus the
   * event's time in ms, or {@link #FAILED} after {@code timeoutMs}.
   */
  synchronized long awaitTrial(String member, int share, long timeoutMs)
      throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMs;
    try {
      while (true) {
        if (eventStartMs >= 0 && done(member, share)) {
          long end = Arrays.stream(firstAfterEvent).max().orElse(0);
          System.out.println("timeline (ms after the event): " + timeline(member, end));
          return end - eventStartMs;
        }
        long left = deadline - System.currentTimeMillis();
        if (left <= 0) {
          System.out.println("trial timed out: " + this);
          return FAILED;
        }
        wait(Math.min(left, 10));
      }
    } finally {
      eventStartMs = -1;
    }
  }

  private String timeline(String member, long endMs) {
    Map<String, Long> grants = new TreeMap<>();
    firstGrantMs.forEach((m, at) -> grants.put(m, at - eventStartMs));
    return "first revocation "
        + (firstRevokeMs == 0 ? "-" : firstRevokeMs - eventStartMs)
        + ", last revocation "
        + (lastRevokeMs == 0 ? "-" : lastRevokeMs - eventStartMs)
        + ", first grant "
        + (member == null ? grants : grants.getOrDefault(member, -1L))
        + ", every partition consumed "
        + (endMs - eventStartMs);
  }

  private boolean done(String member, int share) {
    int held = 0;
    for (int p = 0; p < owner.length; p++) {
      if (owner[p] == null || firstAfterEvent[p] == 0) {
        return false;
      }
      if (owner[p].equals(member)) {
        held++;
      }
    }
    return member == null || held >= share;
  }

  /** Every partition owned, by exactly {@code members} members, each owning at least share. */
  synchronized boolean stable(int members, int share) {
    Map<String, Integer> counts = new HashMap<>();
    for (String o : owner) {
      if (o == null) {
        return false;
      }
      counts.merge(o, 1, Integer::sum);
    }
    return counts.size() == members && counts.values().stream().allMatch(c -> c >= share);
  }

  synchronized void committed(int offsets) {
    commits++;
    offsetsCommitted += offsets;
  }

  /** Commit calls, offsets committed and errors so far. */
  synchronized long[] commitCounters() {
    return new long[] {commits, offsetsCommitted, errors};
  }

  synchronized void error(String what) {
    errors++;
    if (lastErrors.size() < 20) {
      lastErrors.add(what);
      System.out.println("error: " + what);
    }
  }

  @Override
  public synchronized String toString() {
    Map<String, Integer> counts = new HashMap<>();
    int unowned = 0;
    for (String o : owner) {
      if (o == null) {
        unowned++;
      } else {
        counts.merge(o, 1, Integer::sum);
      }
    }
    long notConsumed = Arrays.stream(firstAfterEvent).filter(t -> t == 0).count();
    return "owners "
        + counts
        + ", unowned "
        + unowned
        + ", not consumed since the event "
        + notConsumed
        + ", errors "
        + errors
        + (Objects.equals(lastErrors, List.of()) ? "" : " (first: " + lastErrors.get(0) + ")");
  }
}
