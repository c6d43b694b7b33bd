package dev.spool.broker.replication;

import dev.spool.common.ManualClock;
import java.util.Collection;
import java.util.HashSet;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;

/**
 * The simulated network of a {@link ReplicationSimulation}: every message is an event delivered
 * after a random delay (so messages reorder), some are dropped, and directed links between brokers
 * can be cut and restored. Events also carry timers (request timeouts, scheduled restarts). Events
 * due at the same time run in the order they were scheduled, so a seed replays exactly.
 *
 * <p>Threads: the simulation's single thread; draws from the simulation's one {@link Random}, so
 * the order of calls is part of the run.
 */
final class SimNetwork {
  /** A message or timer due at {@code atMs}; {@code seq} orders events due at the same time. */
  private record Event(long atMs, long seq, Runnable action) implements Comparable<Event> {
    @Override
    public int compareTo(Event o) {
      int c = Long.compare(atMs, o.atMs);
      return c != 0 ? c : Long.compare(seq, o.seq);
    }
  }

  private final ManualClock clock;
  private final Random rnd;
  private final PriorityQueue<Event> events = new PriorityQueue<>();
  private final Set<Long> cutLinks = new HashSet<>(); // from * 1000 + to
  private long eventSeq;

  SimNetwork(ManualClock clock, Random rnd) {
    this.clock = clock;
    this.rnd = rnd;
  }

  /** Runs {@code action} {@code delayMs} from now. */
  void schedule(long delayMs, Runnable action) {
    events.add(new Event(clock.monotonicMs() + delayMs, eventSeq++, action));
  }

  /** Runs every event due by now, including those the running ones schedule for now. */
  void deliverDue() {
    long now = clock.monotonicMs();
    while (!events.isEmpty() && events.peek().atMs() <= now) {
      events.poll().action().run();
    }
  }

  /** How long one message takes, in ms. */
  long delay() {
    return rnd.nextInt(25);
  }

  /** Whether this message is lost (2%). */
  boolean dropped() {
    return rnd.nextInt(100) < 2;
  }

  /** Whether messages from broker {@code from} reach broker {@code to}. */
  boolean linkUp(int from, int to) {
    return !cutLinks.contains(link(from, to));
  }

  /** The key of the directed link from {@code from} to {@code to}. */
  static long link(int from, int to) {
    return from * 1000L + to;
  }

  /** Cuts {@code links} (keys from {@link #link}) until {@link #restore} or {@link #heal}. */
  void cut(Collection<Long> links) {
    cutLinks.addAll(links);
  }

  void restore(Collection<Long> links) {
    links.forEach(cutLinks::remove);
  }

  /** Every link works again. */
  void heal() {
    cutLinks.clear();
  }
}
