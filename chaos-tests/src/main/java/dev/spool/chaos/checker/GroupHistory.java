package dev.spool.chaos.checker;

import dev.spool.chaos.history.OffsetValue;
import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a consumer group did in a run, as the group checkers read it: the writer's acknowledged
 * records, and per member its polls, the partitions its rebalance listener was given, revoked or
 * lost, and the commits the coordinator acknowledged; plus explicit offset resets. Events are in
 * the order they happened (each recorded after it completed, on one shared recorder), and an
 * event's index is its position in {@link #events()}.
 *
 * <p>Immutable; {@link Recorder} builds one from many threads.
 */
public record GroupHistory(List<Event> events) {
  public GroupHistory {
    events = List.copyOf(events);
  }

  /** One thing that happened. */
  public sealed interface Event
      permits Acked, Polled, OwnershipChange, CommitStarted, Committed, CommitUnknown, Reset {}

  /** The writer's send of {@code value} was acknowledged at {@code offset}. */
  public record Acked(TopicPartition partition, long offset, long value) implements Event {}

  /** One poll of {@code member} returned {@code records} of {@code partition}, in order. */
  public record Polled(String member, TopicPartition partition, List<OffsetValue> records)
      implements Event {
    public Polled {
      records = List.copyOf(records);
    }
  }

  /** A rebalance-listener call: it starts or ends the member's ownership of the partitions. */
  public sealed interface OwnershipChange extends Event permits Assigned, Revoked, Lost {
    String member();

    Set<TopicPartition> partitions();
  }

  /** {@code onPartitionsAssigned}: the member owns these from now on. */
  public record Assigned(String member, Set<TopicPartition> partitions) implements OwnershipChange {
    public Assigned {
      partitions = Set.copyOf(partitions);
    }
  }

  /** {@code onPartitionsRevoked}: the member gave these up in order. */
  public record Revoked(String member, Set<TopicPartition> partitions) implements OwnershipChange {
    public Revoked {
      partitions = Set.copyOf(partitions);
    }
  }

  /** {@code onPartitionsLost}: the member was fenced; these may belong to another already. */
  public record Lost(String member, Set<TopicPartition> partitions) implements OwnershipChange {
    public Lost {
      partitions = Set.copyOf(partitions);
    }
  }

  /**
   * {@code member} asked to commit {@code offset} for the partition: from here until its outcome
   * ({@link Committed} or {@link CommitUnknown}) is recorded, the coordinator may apply it at any
   * moment, so another member reading the committed offset in that window may see it.
   */
  public record CommitStarted(String member, TopicPartition partition, long offset)
      implements Event {}

  /** The coordinator acknowledged {@code member}'s commit of {@code offset} for the partition. */
  public record Committed(String member, TopicPartition partition, long offset) implements Event {}

  /**
   * {@code member}'s commit of {@code offset} for the partition failed without saying it was not
   * applied (a timeout, a lost connection, a coordinator that moved while the commit replicated, or
   * a refusal of a retry after an earlier attempt got no answer): the offset may be committed now,
   * or later by the replication already under way.
   */
  public record CommitUnknown(String member, TopicPartition partition, long offset)
      implements Event {}

  /** An operator reset the group's committed offset of the partition to {@code offset}. */
  public record Reset(TopicPartition partition, long offset) implements Event {}

  /** A member's ownership of a partition. */
  record Ownership(String member, TopicPartition partition) {}

  /**
   * The ownerships {@code e} starts or ends (an assignment starts them, a revocation or a loss ends
   * them): either way, what a checker tracked for them no longer applies.
   */
  static List<Ownership> ownershipChanges(Event e) {
    if (!(e instanceof OwnershipChange c)) {
      return List.of();
    }
    return c.partitions().stream().map(tp -> new Ownership(c.member(), tp)).toList();
  }

  /**
   * Every offset known to hold a record, per partition: acknowledged by the writer or returned by
   * any poll. A step over one of these skipped a record that exists.
   */
  Map<TopicPartition, TreeSet<Long>> knownOffsets() {
    Map<TopicPartition, TreeSet<Long>> out = new HashMap<>();
    for (Event e : events) {
      if (e instanceof Acked a) {
        out.computeIfAbsent(a.partition(), k -> new TreeSet<>()).add(a.offset());
      } else if (e instanceof Polled p) {
        TreeSet<Long> s = out.computeIfAbsent(p.partition(), k -> new TreeSet<>());
        p.records().forEach(r -> s.add(r.offset()));
      }
    }
    return out;
  }

  /** The first known offset in [from, to), or null. */
  static Long knownBetween(TreeSet<Long> known, long from, long to) {
    if (known == null || from >= to) {
      return null;
    }
    Long k = known.ceiling(from);
    return k != null && k < to ? k : null;
  }

  /**
   * Collects events from many threads in the order they are recorded.
   *
   * <p>Threading: every method is synchronized; {@link #history()} returns a snapshot.
   */
  public static final class Recorder {
    private final List<Event> events = new ArrayList<>();

    public synchronized void add(Event e) {
      events.add(e);
    }

    public synchronized GroupHistory history() {
      return new GroupHistory(events);
    }
  }
}
