package dev.spool.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.spool.common.TopicPartition;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A reassignment plan in Kafka's format ({@code kafka-reassign-partitions}), field by field:
 *
 * <pre>{@code
 * {"version": 1,                       // required, must be 1
 *  "partitions": [                     // required; may be empty
 *    {"topic": "a",                    // required, non-empty string
 *     "partition": 0,                  // required, integer >= 0
 *     "replicas": [1, 2, 4],           // required, non-empty, distinct broker ids >= 0,
 *                                      //   the preferred leader first
 *     "log_dirs": ["any", "any", "any"]}]}  // optional (Kafka's); read and checked, not used
 * }</pre>
 *
 * A partition may appear once. Unknown fields are refused, so a typo is not silently ignored.
 * Written without {@code log_dirs}: Spool places a replica in its broker's own directories. Pure
 * and immutable; any thread.
 *
 * @param partitions each partition's target, sorted by topic and partition
 */
record ReassignmentPlan(List<Move> partitions) {
  static final int VERSION = 1;
  private static final JsonFactory FACTORY = new JsonFactory();

  /**
   * One partition's target replicas; {@code logDirs} is Kafka's optional field, empty if absent.
   */
  record Move(TopicPartition partition, List<Integer> replicas, List<String> logDirs) {
    Move {
      replicas = List.copyOf(replicas);
      logDirs = List.copyOf(logDirs);
    }

    Move(TopicPartition partition, List<Integer> replicas) {
      this(partition, replicas, List.of());
    }
  }

  ReassignmentPlan {
    partitions =
        partitions.stream().sorted((x, y) -> x.partition().compareTo(y.partition())).toList();
  }

  /** The plan of {@code targets} (partition → replicas). */
  static ReassignmentPlan of(Map<TopicPartition, List<Integer>> targets) {
    List<Move> moves = new ArrayList<>();
    new TreeMap<>(targets).forEach((tp, r) -> moves.add(new Move(tp, r)));
    return new ReassignmentPlan(moves);
  }

  /** Partition → target replicas, sorted. */
  Map<TopicPartition, List<Integer>> targets() {
    Map<TopicPartition, List<Integer>> out = new TreeMap<>();
    partitions.forEach(m -> out.put(m.partition(), m.replicas()));
    return out;
  }

  /** Kafka's JSON, on one line. */
  String toJson() {
    return JsonLines.toJson(this::write);
  }

  void write(JsonGenerator g) throws IOException {
    g.writeStartObject();
    g.writeNumberField("version", VERSION);
    g.writeArrayFieldStart("partitions");
    for (Move m : partitions) {
      g.writeStartObject();
      g.writeStringField("topic", m.partition().topic());
      g.writeNumberField("partition", m.partition().partition());
      JsonLines.intArray(g, "replicas", m.replicas());
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeEndObject();
  }

  /**
   * Reads Kafka's JSON; IllegalArgumentException naming what is wrong (malformed JSON, a missing or
   * mistyped field, version other than 1, a partition named twice, a bad replica list).
   */
  static ReassignmentPlan parse(String json) {
    try (JsonParser p = FACTORY.createParser(json)) {
      expect(p.nextToken() == JsonToken.START_OBJECT, "the plan must be a JSON object");
      Integer version = null;
      List<Move> moves = null;
      while (p.nextToken() != JsonToken.END_OBJECT) {
        String field = p.currentName();
        p.nextToken();
        switch (field) {
          case "version" -> version = intValue(p, "version");
          case "partitions" -> moves = moves(p);
          default ->
              throw new IllegalArgumentException("unknown field '" + field + "' in the plan");
        }
      }
      expect(p.nextToken() == null, "unexpected content after the plan's closing '}'");
      expect(version != null, "the plan has no \"version\" field");
      expect(version == VERSION, "the plan's version must be 1, got " + version);
      expect(moves != null, "the plan has no \"partitions\" field");
      return new ReassignmentPlan(moves);
    } catch (JsonParseException e) {
      throw new IllegalArgumentException(
          "the plan is not valid JSON: " + e.getOriginalMessage().replace('\n', ' '), e);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read the plan: " + e.getMessage(), e);
    }
  }

  private static List<Move> moves(JsonParser p) throws IOException {
    expect(p.currentToken() == JsonToken.START_ARRAY, "\"partitions\" must be an array");
    List<Move> moves = new ArrayList<>();
    Set<TopicPartition> seen = new HashSet<>();
    while (p.nextToken() != JsonToken.END_ARRAY) {
      int index = moves.size();
      Move m = move(p, "partitions[" + index + "]");
      expect(seen.add(m.partition()), "partition " + m.partition() + " appears twice in the plan");
      moves.add(m);
    }
    return moves;
  }

  private static Move move(JsonParser p, String where) throws IOException {
    expect(p.currentToken() == JsonToken.START_OBJECT, where + " must be an object");
    String topic = null;
    Integer partition = null;
    List<Integer> replicas = null;
    List<String> logDirs = List.of();
    while (p.nextToken() != JsonToken.END_OBJECT) {
      String field = p.currentName();
      p.nextToken();
      switch (field) {
        case "topic" -> {
          expect(p.currentToken() == JsonToken.VALUE_STRING, where + ".topic must be a string");
          topic = p.getText();
          expect(!topic.isEmpty(), where + ".topic is empty");
        }
        case "partition" -> partition = intValue(p, where + ".partition");
        case "replicas" -> replicas = replicas(p, where);
        case "log_dirs" -> logDirs = strings(p, where + ".log_dirs");
        default -> throw new IllegalArgumentException("unknown field '" + field + "' in " + where);
      }
    }
    expect(topic != null, where + " has no \"topic\"");
    expect(partition != null, where + " (topic '" + topic + "') has no \"partition\"");
    expect(partition >= 0, where + ".partition must be 0 or above, got " + partition);
    TopicPartition tp = new TopicPartition(topic, partition);
    expect(replicas != null, "partition " + tp + " has no \"replicas\"");
    expect(!replicas.isEmpty(), "partition " + tp + " has an empty \"replicas\" list");
    expect(
        new HashSet<>(replicas).size() == replicas.size(),
        "partition " + tp + " names a broker twice in \"replicas\": " + replicas);
    expect(
        logDirs.isEmpty() || logDirs.size() == replicas.size(),
        "partition "
            + tp
            + " has "
            + logDirs.size()
            + " log_dirs for "
            + replicas.size()
            + " replicas");
    return new Move(tp, replicas, logDirs);
  }

  private static List<Integer> replicas(JsonParser p, String where) throws IOException {
    expect(p.currentToken() == JsonToken.START_ARRAY, where + ".replicas must be an array");
    List<Integer> out = new ArrayList<>();
    while (p.nextToken() != JsonToken.END_ARRAY) {
      int id = intValue(p, where + ".replicas[" + out.size() + "]");
      expect(id >= 0, where + ".replicas has a negative broker id " + id);
      out.add(id);
    }
    return out;
  }

  private static List<String> strings(JsonParser p, String where) throws IOException {
    expect(p.currentToken() == JsonToken.START_ARRAY, where + " must be an array of strings");
    List<String> out = new ArrayList<>();
    while (p.nextToken() != JsonToken.END_ARRAY) {
      expect(p.currentToken() == JsonToken.VALUE_STRING, where + " must be an array of strings");
      out.add(p.getText());
    }
    return out;
  }

  private static int intValue(JsonParser p, String where) throws IOException {
    expect(
        p.currentToken() == JsonToken.VALUE_NUMBER_INT
            && p.getNumberType() == JsonParser.NumberType.INT,
        where + " must be an integer");
    return p.getIntValue();
  }

  private static void expect(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }
}
