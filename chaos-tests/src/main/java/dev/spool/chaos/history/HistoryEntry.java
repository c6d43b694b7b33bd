package dev.spool.chaos.history;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/**
 * One line of {@code history.jsonl}. Client operations ({@link Op}) and the harness's white-box
 * observations ({@link ReplicaSnapshot}, {@link EpochObservation}, {@link ClientLeaderView}) share
 * one file, in the order they were recorded, told apart by the {@code kind} field.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "kind")
@JsonSubTypes({
  @JsonSubTypes.Type(value = Op.class, name = "op"),
  @JsonSubTypes.Type(value = ReplicaSnapshot.class, name = "replica"),
  @JsonSubTypes.Type(value = EpochObservation.class, name = "epoch"),
  @JsonSubTypes.Type(value = ClientLeaderView.class, name = "client-leader")
})
public sealed interface HistoryEntry
    permits Op, ReplicaSnapshot, EpochObservation, ClientLeaderView {
  /** Monotonic nanoseconds since the start of the run. */
  long timeNs();
}
