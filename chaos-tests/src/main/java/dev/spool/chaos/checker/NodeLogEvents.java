package dev.spool.chaos.checker;

import dev.spool.common.TopicPartition;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the failover steps out of a node's log lines, for the {@link FaultTimelines}. Pure: lines
 * in, events out. Each line starts with the node's wall-clock time ({@code 2026-12-07
 * 17:01:02.345}, the JVM's time zone: data-plane's logback.xml); the lines it knows:
 *
 * <ul>
 *   <li>{@link Type#SESSION_EXPIRED}: {@code controller write at offset N: ... fence B (session
 *       expired) ...} (ActiveController);
 *   <li>{@link Type#CONTROLLER_ACTIVE}: {@code became the active controller in term T}
 *       (MetadataStateMachine);
 *   <li>{@link Type#ISR_PROPOSED}: {@code [node=N partition=P epoch=E] proposing ISR [..] (now
 *       [..])} (Partition);
 *   <li>{@link Type#COMMITTED}: {@code [node=N term=T] committed at offset O: partition P leader A
 *       -> B epoch E -> F isr [..] -> [..]} (ActiveController);
 *   <li>{@link Type#LEADING}: {@code [node=N partition=P epoch=E] X -> LEADER: leading in epoch E
 *       ...} (Partition);
 *   <li>{@link Type#ISR_TAKEN}: {@code [node=N partition=P epoch=E] ISR is now [..]} (Partition).
 * </ul>
 *
 * Other lines, and lines without a readable time, are skipped.
 */
public final class NodeLogEvents {
  /** What a line says happened. */
  public enum Type {
    /** The active controller found broker {@code subject}'s session expired (and fences it). */
    SESSION_EXPIRED,
    /**
     * This node became the active controller: a quorum leader change (Ratis logs its own role
     * changes through a logger the node keeps at WARN, so the election itself is not seen).
     */
    CONTROLLER_ACTIVE,
    /** A partition leader asked the controller to drop {@code removed} from the ISR. */
    ISR_PROPOSED,
    /** The active controller committed a change of a partition's leader, epoch or ISR. */
    COMMITTED,
    /** This broker started to lead {@code partition} in {@code epoch}. */
    LEADING,
    /** This broker, leading {@code partition}, took a new ISR. */
    ISR_TAKEN
  }

  /**
   * One event. Fields a type does not use are -1, null or empty.
   *
   * @param atMs wall clock, ms since the epoch
   * @param node the node whose log said it
   * @param subject SESSION_EXPIRED: the broker whose session expired
   * @param leaderBefore COMMITTED: the leader before the change
   * @param leader COMMITTED: the leader after; LEADING, ISR_PROPOSED, ISR_TAKEN: the node
   * @param epoch COMMITTED, LEADING: the (new) leader epoch
   * @param removed COMMITTED: ISR members dropped; ISR_PROPOSED: members it asks to drop
   * @param isr COMMITTED, ISR_PROPOSED, ISR_TAKEN: the (new) ISR
   */
  public record Event(
      long atMs,
      int node,
      Type type,
      int subject,
      TopicPartition partition,
      int leaderBefore,
      int leader,
      int epoch,
      List<Integer> removed,
      List<Integer> isr) {
    public Event {
      removed = List.copyOf(removed);
      isr = List.copyOf(isr);
    }

    static Event of(long atMs, int node, Type type) {
      return new Event(atMs, node, type, -1, null, -1, -1, -1, List.of(), List.of());
    }

    /** A broker's event about a partition {@code leader} leads. */
    static Event leading(
        long atMs,
        int node,
        Type type,
        String partition,
        int leader,
        int epoch,
        List<Integer> isr) {
      return new Event(
          atMs, node, type, -1, TopicPartition.parse(partition), -1, leader, epoch, List.of(), isr);
    }
  }

  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");
  private static final Pattern CONTROLLER_WRITE =
      Pattern.compile("controller write at offset \\d+: (.*)");
  private static final Pattern SESSION_EXPIRED =
      Pattern.compile("fence (\\d+) \\(session expired\\)");
  private static final Pattern ACTIVE = Pattern.compile("became the active controller in term");
  private static final Pattern PROPOSED =
      Pattern.compile(
          "\\[node=(\\d+) partition=(\\S+) epoch=\\d+\\] proposing ISR \\[([\\d, ]*)\\] \\(now"
              + " \\[([\\d, ]*)\\]\\)");
  private static final Pattern COMMITTED =
      Pattern.compile(
          "committed at offset \\d+: partition (\\S+) leader (-?\\d+) -> (-?\\d+) epoch \\d+ ->"
              + " (\\d+) isr \\[([\\d, ]*)\\] -> \\[([\\d, ]*)\\]");
  private static final Pattern LEADING =
      Pattern.compile(
          "\\[node=(\\d+) partition=(\\S+) epoch=\\d+\\] \\w+ -> LEADER: leading in epoch (\\d+)");
  private static final Pattern ISR_TAKEN =
      Pattern.compile("\\[node=(\\d+) partition=(\\S+) epoch=\\d+\\] ISR is now \\[([\\d, ]*)\\]");

  private NodeLogEvents() {}

  /** A cheap first look: false for a line that cannot be one of the events (most lines). */
  public static boolean mayMatch(String line) {
    return line.contains("ISR")
        || line.contains("LEADER")
        || line.contains("session expired")
        || line.contains("active controller in term")
        || line.contains("committed at offset");
  }

  /** The events of node {@code node}'s log lines, in line order; times read in {@code zone}. */
  public static List<Event> parse(int node, List<String> lines, ZoneId zone) {
    List<Event> out = new ArrayList<>();
    for (String line : lines) {
      if (line.length() < 24 || !Character.isDigit(line.charAt(0))) {
        continue;
      }
      long at;
      try {
        at =
            LocalDateTime.parse(line.substring(0, 23), TIME)
                .atZone(zone)
                .toInstant()
                .toEpochMilli();
      } catch (DateTimeParseException e) {
        continue; // a line of another format: the harness's own, a JVM message
      }
      parseLine(node, at, line, out);
    }
    return out;
  }

  private static void parseLine(int node, long at, String line, List<Event> out) {
    Matcher m;
    if ((m = CONTROLLER_WRITE.matcher(line)).find()) {
      Matcher f = SESSION_EXPIRED.matcher(m.group(1));
      while (f.find()) {
        int b = Integer.parseInt(f.group(1));
        out.add(
            new Event(at, node, Type.SESSION_EXPIRED, b, null, -1, -1, -1, List.of(), List.of()));
      }
    } else if (ACTIVE.matcher(line).find()) {
      out.add(Event.of(at, node, Type.CONTROLLER_ACTIVE));
    } else if ((m = PROPOSED.matcher(line)).find()) {
      List<Integer> isr = ids(m.group(3));
      List<Integer> removed = new ArrayList<>(ids(m.group(4)));
      removed.removeAll(isr);
      int leader = Integer.parseInt(m.group(1));
      out.add(
          new Event(at, node, Type.ISR_PROPOSED, -1, tp(m.group(2)), -1, leader, -1, removed, isr));
    } else if ((m = COMMITTED.matcher(line)).find()) {
      List<Integer> before = ids(m.group(5));
      List<Integer> isr = ids(m.group(6));
      List<Integer> removed = new ArrayList<>(before);
      removed.removeAll(isr);
      out.add(
          new Event(
              at,
              node,
              Type.COMMITTED,
              -1,
              tp(m.group(1)),
              Integer.parseInt(m.group(2)),
              Integer.parseInt(m.group(3)),
              Integer.parseInt(m.group(4)),
              removed,
              isr));
    } else if ((m = LEADING.matcher(line)).find()) {
      int leader = Integer.parseInt(m.group(1));
      int epoch = Integer.parseInt(m.group(3));
      out.add(Event.leading(at, node, Type.LEADING, m.group(2), leader, epoch, List.of()));
    } else if ((m = ISR_TAKEN.matcher(line)).find()) {
      int leader = Integer.parseInt(m.group(1));
      out.add(Event.leading(at, node, Type.ISR_TAKEN, m.group(2), leader, -1, ids(m.group(3))));
    }
  }

  private static TopicPartition tp(String s) {
    return TopicPartition.parse(s);
  }

  private static List<Integer> ids(String list) {
    List<Integer> out = new ArrayList<>();
    for (String s : list.split(",")) {
      if (!s.isBlank()) {
        out.add(Integer.parseInt(s.strip()));
      }
    }
    return out;
  }
}
