package dev.spool.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.TopicPartition;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Tag("unit")
class ReassignmentPlanTest {
  private static final String KAFKA =
      "{\"version\":1,\"partitions\":[{\"topic\":\"a\",\"partition\":0,\"replicas\":[1,2,4]},"
          + "{\"topic\":\"a\",\"partition\":1,\"replicas\":[2,4,1]}]}";

  @Test
  void writesExactlyKafkasFormatSortedByPartition() {
    ReassignmentPlan plan =
        ReassignmentPlan.of(
            Map.of(
                new TopicPartition("a", 1), List.of(2, 4, 1),
                new TopicPartition("a", 0), List.of(1, 2, 4)));
    assertEquals(KAFKA, plan.toJson());
  }

  @Test
  void readsWhatItWritesAndAnEmptyPlan() {
    ReassignmentPlan plan = ReassignmentPlan.parse(KAFKA);
    assertEquals(KAFKA, plan.toJson());
    assertEquals(
        Map.of(
            new TopicPartition("a", 0), List.of(1, 2, 4),
            new TopicPartition("a", 1), List.of(2, 4, 1)),
        plan.targets());
    assertEquals(
        List.of(), ReassignmentPlan.parse("{\"version\":1,\"partitions\":[]}").partitions());
  }

  @Test
  void acceptsKafkasLogDirsAndWritesWithoutThem() {
    String withDirs =
        "{\"partitions\": [{\"topic\": \"a\", \"partition\": 0, \"replicas\": [1, 2],"
            + " \"log_dirs\": [\"any\", \"/data/x\"]}],\n \"version\": 1}";
    ReassignmentPlan plan = ReassignmentPlan.parse(withDirs);
    assertEquals(List.of("any", "/data/x"), plan.partitions().get(0).logDirs());
    assertEquals(
        "{\"version\":1,\"partitions\":[{\"topic\":\"a\",\"partition\":0,\"replicas\":[1,2]}]}",
        plan.toJson());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      textBlock =
          """
          not JSON                | {"version":1,                                  | not valid JSON
          truncated               | {"version":1,"partitions":[                    | not valid JSON
          not an object           | [1,2]                                          | must be a JSON object
          trailing content        | {"version":1,"partitions":[]} {}               | after the plan's closing
          no version              | {"partitions":[]}                              | no "version" field
          version 2               | {"version":2,"partitions":[]}                  | version must be 1, got 2
          version as text         | {"version":"1","partitions":[]}                | version must be an integer
          no partitions           | {"version":1}                                  | no "partitions" field
          partitions not array    | {"version":1,"partitions":{}}                  | "partitions" must be an array
          unknown top field       | {"version":1,"partitions":[],"x":1}            | unknown field 'x' in the plan
          entry not object        | {"version":1,"partitions":[3]}                 | partitions[0] must be an object
          no topic                | {"version":1,"partitions":[{"partition":0,"replicas":[1]}]} | partitions[0] has no "topic"
          empty topic             | {"version":1,"partitions":[{"topic":"","partition":0,"replicas":[1]}]} | partitions[0].topic is empty
          topic not string        | {"version":1,"partitions":[{"topic":5,"partition":0,"replicas":[1]}]} | topic must be a string
          no partition            | {"version":1,"partitions":[{"topic":"a","replicas":[1]}]} | (topic 'a') has no "partition"
          negative partition      | {"version":1,"partitions":[{"topic":"a","partition":-1,"replicas":[1]}]} | must be 0 or above, got -1
          fractional partition    | {"version":1,"partitions":[{"topic":"a","partition":1.5,"replicas":[1]}]} | partition must be an integer
          huge partition          | {"version":1,"partitions":[{"topic":"a","partition":99999999999,"replicas":[1]}]} | partition must be an integer
          no replicas             | {"version":1,"partitions":[{"topic":"a","partition":0}]} | partition a-0 has no "replicas"
          empty replicas          | {"version":1,"partitions":[{"topic":"a","partition":0,"replicas":[]}]} | a-0 has an empty "replicas" list
          repeated replica        | {"version":1,"partitions":[{"topic":"a","partition":0,"replicas":[1,1]}]} | names a broker twice
          negative replica        | {"version":1,"partitions":[{"topic":"a","partition":0,"replicas":[-1]}]} | negative broker id -1
          replica as text         | {"version":1,"partitions":[{"topic":"a","partition":0,"replicas":["1"]}]} | replicas[0] must be an integer
          replicas not array      | {"version":1,"partitions":[{"topic":"a","partition":0,"replicas":1}]} | replicas must be an array
          log_dirs wrong length   | {"version":1,"partitions":[{"topic":"a","partition":0,"replicas":[1,2],"log_dirs":["any"]}]} | has 1 log_dirs for 2 replicas
          log_dirs not strings    | {"version":1,"partitions":[{"topic":"a","partition":0,"replicas":[1],"log_dirs":[1]}]} | log_dirs must be an array of strings
          unknown partition field | {"version":1,"partitions":[{"topic":"a","partition":0,"replicas":[1],"leader":1}]} | unknown field 'leader' in partitions[0]
          duplicate partition     | {"version":1,"partitions":[{"topic":"a","partition":0,"replicas":[1]},{"topic":"a","partition":0,"replicas":[2]}]} | partition a-0 appears twice
          """)
  void refusesMalformedPlansSayingWhatIsWrong(String name, String json, String expected) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> ReassignmentPlan.parse(json));
    assertTrue(e.getMessage().contains(expected), name + ": " + e.getMessage());
  }
}
