package dev.spool.client;

import dev.spool.common.BrokerReadiness;
import dev.spool.protocol.message.BrokerInfo;
import dev.spool.protocol.message.DescribeClusterResponse;
import dev.spool.protocol.message.QuorumInfo;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The cluster as one broker sees it: brokers with their registration epoch and fencing state, the
 * metadata quorum (its leader is the active controller) with each voter's replication lag, and
 * partition health counts.
 *
 * @param controllerId the active controller (quorum leader) node id, -1 if unknown
 * @param offlinePartitions partitions without a leader
 * @param underReplicatedPartitions partitions whose ISR is smaller than their replica set
 * @param underMinIsrPartitions partitions whose ISR is below min.insync.replicas
 * @param metadataOffset the answering broker's metadata offset (Raft index it has applied)
 */
public record ClusterDescription(
    String clusterId,
    int controllerId,
    List<Broker> brokers,
    Quorum quorum,
    int offlinePartitions,
    int underReplicatedPartitions,
    int underMinIsrPartitions,
    long metadataOffset) {

  public ClusterDescription {
    brokers = List.copyOf(brokers);
  }

  /** The cluster as one DescribeCluster answer describes it. */
  static ClusterDescription from(DescribeClusterResponse d) {
    List<Broker> brokers = new ArrayList<>();
    for (BrokerInfo b : d.getBrokersList()) {
      brokers.add(
          new Broker(
              b.getNodeId(),
              b.getHost(),
              b.getPort(),
              b.getRack(),
              b.getBrokerEpoch(),
              b.getFenced(),
              b.getInControlledShutdown(),
              b.getOfflineDirsList()));
    }
    brokers.sort(Comparator.comparingInt(Broker::id));
    QuorumInfo q = d.getQuorum();
    List<Voter> voters = new ArrayList<>();
    for (QuorumInfo.Voter v : q.getVotersList()) {
      voters.add(
          new Voter(
              v.getNodeId(),
              v.getAddress(),
              v.getLastIndex(),
              v.getLag(),
              v.getLastContactMsAgo()));
    }
    voters.sort(Comparator.comparingInt(Voter::nodeId));
    int leader = d.hasQuorum() ? q.getLeaderId() : -1;
    return new ClusterDescription(
        d.getClusterId(),
        leader,
        brokers,
        new Quorum(leader, q.getTerm(), q.getCommitIndex(), voters),
        d.getOfflinePartitions(),
        d.getUnderReplicatedPartitions(),
        d.getUnderMinIsrPartitions(),
        d.getMetadataOffset());
  }

  /**
   * A registered broker; {@code epoch} is its broker epoch, {@code fenced} means it serves nothing,
   * {@code offlineDirs} are its data directories that failed on a storage error (it serves no
   * replica there; empty when every directory is online).
   */
  public record Broker(
      int id,
      String host,
      int port,
      String rack,
      long epoch,
      boolean fenced,
      boolean inControlledShutdown,
      List<String> offlineDirs) {

    public Broker {
      offlineDirs = List.copyOf(offlineDirs);
    }

    /** Why this broker is not ready ("" when ready): {@link BrokerReadiness}. */
    public String notReadyReason() {
      return BrokerReadiness.notReadyReason(fenced, inControlledShutdown, offlineDirs);
    }
  }

  /**
   * The Raft quorum that holds the metadata.
   *
   * @param leaderId the leader (active controller), -1 if unknown
   * @param term the Raft term
   * @param commitIndex the leader's commit index
   */
  public record Quorum(int leaderId, long term, long commitIndex, List<Voter> voters) {
    public Quorum {
      voters = List.copyOf(voters);
    }
  }

  /**
   * One voter of the quorum.
   *
   * @param lastIndex its match index as the leader sees it, -1 if unknown
   * @param lag the leader's last index minus this voter's, -1 if unknown
   * @param lastContactMsAgo time since the leader last heard from it, -1 if unknown
   */
  public record Voter(
      int nodeId, String address, long lastIndex, long lag, long lastContactMsAgo) {}
}
