package dev.spool.broker.replication;

import java.util.List;

/**
 * An ISR change a partition leader asks the quorum for (AlterPartition): the epochs it was decided
 * in, so that a late answer can be told apart from a current one. Immutable; any thread.
 */
public record IsrChange(
    String topic,
    String topicId,
    int partition,
    int leaderEpoch,
    int partitionEpoch,
    List<Integer> newIsr) {}
