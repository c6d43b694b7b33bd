package dev.spool.broker.request;

import dev.spool.broker.network.BrokerResponse;
import dev.spool.broker.network.RequestContext;
import dev.spool.broker.network.RequestHandler;
import dev.spool.coordinator.group.api.GroupDescription;
import dev.spool.coordinator.group.api.MemberDescription;
import dev.spool.protocol.message.DescribeGroupsRequest;
import dev.spool.protocol.message.DescribeGroupsResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * DescribeGroups (Kafka's ConsumerGroupDescribe): state, epochs, members, assignments. Netty
 * thread.
 */
public final class DescribeGroupsHandler implements RequestHandler {
  private final AuthorizedGroups coordinator;

  public DescribeGroupsHandler(AuthorizedGroups coordinator) {
    this.coordinator = coordinator;
  }

  @Override
  public CompletableFuture<BrokerResponse> handle(RequestContext request) {
    DescribeGroupsRequest req = request.frame().parseBody(DescribeGroupsRequest.parser());
    List<CompletableFuture<GroupDescription>> all = new ArrayList<>();
    req.getGroupIdsList().forEach(id -> all.add(coordinator.describeGroup(id, request.caller())));
    return CompletableFuture.allOf(all.toArray(new CompletableFuture[0]))
        .thenApply(
            v -> {
              DescribeGroupsResponse.Builder b = DescribeGroupsResponse.newBuilder();
              all.forEach(f -> b.addGroups(toProto(f.join())));
              return BrokerResponse.of(b.build());
            });
  }

  private static DescribeGroupsResponse.Group toProto(GroupDescription d) {
    DescribeGroupsResponse.Group.Builder g =
        DescribeGroupsResponse.Group.newBuilder()
            .setGroupId(d.groupId())
            .setErrorCode(d.error())
            .setErrorMessage(d.message())
            .setState(d.state())
            .setGroupEpoch(d.groupEpoch())
            .setAssignmentEpoch(d.assignmentEpoch())
            .setAssignorName(d.assignor());
    for (MemberDescription m : d.members()) {
      g.addMembers(
          DescribeGroupsResponse.Member.newBuilder()
              .setMemberId(m.memberId())
              .setInstanceId(m.instanceId())
              .setRackId(m.rackId())
              .setMemberEpoch(m.memberEpoch())
              .setClientId(m.clientId())
              .setClientHost(m.clientHost())
              .addAllSubscribedTopicNames(m.subscribedTopicNames())
              .setSubscribedTopicRegex(m.subscribedTopicRegex())
              .addAllAssignment(GroupProtos.toProto(m.assignment()))
              .addAllTargetAssignment(GroupProtos.toProto(m.targetAssignment()))
              .setMemberState(m.memberState()));
    }
    return g.build();
  }
}
