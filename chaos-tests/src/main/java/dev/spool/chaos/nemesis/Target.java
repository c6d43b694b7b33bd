package dev.spool.chaos.nemesis;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import dev.spool.common.TopicPartition;

/**
 * Whom a planned fault hits, named abstractly: the schedule is made before the run and cannot know
 * who will lead a partition at 2 minutes 13. {@link TargetResolver} turns a target into node ids
 * against the live cluster when the fault starts. Random choices carry a {@code pick} drawn from
 * the schedule's seeded {@link java.util.Random}, so the same seed on the same cluster picks the
 * same nodes.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
  @JsonSubTypes.Type(value = Target.RandomNode.class, name = "RANDOM_NODE"),
  @JsonSubTypes.Type(value = Target.PartitionLeader.class, name = "PARTITION_LEADER"),
  @JsonSubTypes.Type(value = Target.ActiveController.class, name = "ACTIVE_CONTROLLER"),
  @JsonSubTypes.Type(value = Target.AllNodes.class, name = "ALL_NODES"),
  @JsonSubTypes.Type(value = Target.MajorityMinority.class, name = "MAJORITY_MINORITY"),
  @JsonSubTypes.Type(value = Target.NodePair.class, name = "NODE_PAIR"),
  @JsonSubTypes.Type(value = Target.ClientLinks.class, name = "CLIENT_LINKS")
})
public sealed interface Target {
  /** The node at position {@code pick mod n} of the node list. */
  record RandomNode(int pick) implements Target {
    @Override
    public String toString() {
      return "RANDOM_NODE(pick=" + pick + ")";
    }
  }

  /** The current leader of one partition. */
  record PartitionLeader(TopicPartition partition) implements Target {
    @Override
    public String toString() {
      return "PARTITION_LEADER(" + partition + ")";
    }
  }

  /** The active controller (the Ratis leader of the metadata quorum). */
  record ActiveController() implements Target {
    @Override
    public String toString() {
      return "ACTIVE_CONTROLLER";
    }
  }

  /** Every node. */
  record AllNodes() implements Target {
    @Override
    public String toString() {
      return "ALL_NODES";
    }
  }

  /** A split into a minority and a majority; {@code pick} seeds which nodes are in the minority. */
  record MajorityMinority(int pick) implements Target {
    @Override
    public String toString() {
      return "MAJORITY_MINORITY(pick=" + pick + ")";
    }
  }

  /**
   * An ordered pair of distinct nodes, for one-way faults: {@code from} loses packets to {@code
   * to}.
   */
  record NodePair(int fromPick, int toPick) implements Target {
    @Override
    public String toString() {
      return "NODE_PAIR(from=" + fromPick + ", to=" + toPick + ")";
    }
  }

  /** The clients' links to the brokers (through the fault proxies). */
  record ClientLinks() implements Target {
    @Override
    public String toString() {
      return "CLIENT_LINKS";
    }
  }
}
