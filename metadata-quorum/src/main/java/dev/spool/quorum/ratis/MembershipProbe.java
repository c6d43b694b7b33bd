package dev.spool.quorum.ratis;

import dev.spool.quorum.QuorumTls;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.proto.RaftProtos.RaftConfigurationProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerProto;
import org.apache.ratis.protocol.GroupInfoReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;

/**
 * The first start of an original voter (no Raft storage in its quorum directory yet) asks the other
 * voters of {@code controller.quorum.voters} for the quorum's current configuration
 * (docs/operations.md#dynamic-controller-quorum). A member that answers with a configuration that
 * does not hold this node, as voter or listener, in the current or (during a change) the old set,
 * means this node was removed: it must not start as an original voter with an empty log. A member
 * that does not answer, answers for another group, or still holds the initial configuration says
 * nothing, and the start goes on: on a new cluster the others are starting too.
 */
final class MembershipProbe {
  private MembershipProbe() {}

  /**
   * Why {@code self} must not start as an original voter of {@code group}, if a member says so;
   * asks over the quorum's TLS when {@code tls} is set.
   */
  static Optional<String> refusal(RaftGroup group, RaftPeerId self, long timeoutMs, QuorumTls tls) {
    List<RaftPeer> others = group.getPeers().stream().filter(p -> !p.getId().equals(self)).toList();
    if (others.isEmpty()) {
      return Optional.empty();
    }
    ExecutorService pool =
        Executors.newFixedThreadPool(
            others.size(),
            r -> {
              Thread t = new Thread(r, "quorum-membership-probe");
              t.setDaemon(true);
              return t;
            });
    try {
      List<CompletableFuture<Optional<String>>> answers = new ArrayList<>();
      for (RaftPeer p : others) {
        answers.add(CompletableFuture.supplyAsync(() -> ask(group, p, self, timeoutMs, tls), pool));
      }
      for (CompletableFuture<Optional<String>> a : answers) {
        Optional<String> why =
            a.completeOnTimeout(Optional.empty(), timeoutMs * 2, TimeUnit.MILLISECONDS).join();
        if (why.isPresent()) {
          return why;
        }
      }
      return Optional.empty();
    } finally {
      pool.shutdownNow();
    }
  }

  private static Optional<String> ask(
      RaftGroup group, RaftPeer p, RaftPeerId self, long timeoutMs, QuorumTls tls) {
    GroupInfoReply info;
    try (RaftClient c =
        RaftSetup.clientBuilder(tls)
            .setProperties(RaftSetup.clientProperties(timeoutMs))
            .setRaftGroup(RaftGroup.valueOf(group.getGroupId(), List.of(p)))
            .setRetryPolicy(RetryPolicies.noRetry())
            .build()) {
      info = c.getGroupManagementApi(p.getId()).info(group.getGroupId());
    } catch (Exception e) {
      return Optional.empty(); // not up yet, another group, or gone: it says nothing
    }
    RaftConfigurationProto conf = info.getConf().orElse(null);
    if (conf == null || conf.getPeersCount() == 0) {
      return Optional.empty();
    }
    TreeSet<Integer> members = new TreeSet<>();
    boolean holdsSelf = false;
    for (List<RaftPeerProto> set :
        List.of(
            conf.getPeersList(),
            conf.getListenersList(),
            conf.getOldPeersList(),
            conf.getOldListenersList())) {
      for (RaftPeerProto m : set) {
        RaftPeerId id = RaftPeerId.valueOf(m.getId());
        holdsSelf |= id.equals(self);
        members.add(RaftSetup.nodeId(id));
      }
    }
    if (holdsSelf) {
      return Optional.empty();
    }
    return Optional.of(
        "node "
            + RaftSetup.nodeId(self)
            + " is not a member of the running quorum: controller "
            + RaftSetup.nodeId(p.getId())
            + " at "
            + p.getAddress()
            + " answers with members "
            + members
            + ". It was removed, and starting it as an original voter with an empty Raft log could"
            + " help elect a leader without committed metadata. Bring it back as a new member:"
            + " set controller.quorum.listener to its Raft address, start it, and run"
            + " `spool quorum add-voter` (docs/operations.md#dynamic-controller-quorum)");
  }
}
