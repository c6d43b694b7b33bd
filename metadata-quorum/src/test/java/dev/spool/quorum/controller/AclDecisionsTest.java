package dev.spool.quorum.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.AclBinding;
import dev.spool.common.AclOperation;
import dev.spool.common.AclResourceType;
import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.Acl;
import dev.spool.protocol.message.AclFilter;
import dev.spool.protocol.message.CreateAclsRequest;
import dev.spool.protocol.message.CreateAclsResponse;
import dev.spool.protocol.message.DeleteAclsRequest;
import dev.spool.protocol.message.DeleteAclsResponse;
import dev.spool.quorum.image.ImageSnapshots;
import dev.spool.quorum.image.MetadataApplier;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.MetadataBatch;
import dev.spool.quorum.message.RecordResult;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * CreateAcls and DeleteAcls decisions and their records: a good ACL is stored once with an id,
 * every kind of bad ACL is refused INVALID_ACL with its reason and no record, a deletion filter
 * removes what it matches, and the ACLs survive a snapshot.
 */
@Tag("unit")
class AclDecisionsTest {
  private final Random random = new Random(7);

  private static Acl acl(String type, String name, String op, String permission) {
    return Acl.newBuilder()
        .setResourceType(type)
        .setResourceName(name)
        .setPatternType("LITERAL")
        .setPrincipal("User:alice")
        .setHost("*")
        .setOperation(op)
        .setPermission(permission)
        .build();
  }

  private static MetadataImage atLevel(int level) {
    return MetadataApplier.replay(
        MetadataImage.EMPTY,
        MetadataBatch.newBuilder()
            .addRecords(Records.featureLevel(MetadataVersion.FEATURE, level))
            .build(),
        1);
  }

  private static MetadataImage apply(MetadataImage img, Decision d) {
    return MetadataApplier.replay(img, d.batch(), img.offset() + 1);
  }

  private CreateAclsResponse create(MetadataImage[] img, Acl... acls) {
    Decision d =
        AclDecisions.create(
            CreateAclsRequest.newBuilder().addAllCreations(List.of(acls)).build(), img[0], random);
    img[0] = apply(img[0], d);
    return d.reply().getCreateAcls();
  }

  @Test
  void anAclIsStoredOnceWithAnId() {
    MetadataImage[] img = {atLevel(MetadataVersion.ACLS)};
    CreateAclsResponse r = create(img, acl("TOPIC", "orders", "READ", "ALLOW"));
    assertEquals(ErrorCode.NONE, r.getResults(0).getErrorCode());
    String id = r.getResults(0).getId();
    assertFalse(id.isEmpty());
    AclBinding expected =
        new AclBinding(
            AclResourceType.TOPIC,
            "orders",
            AclBinding.PatternType.LITERAL,
            "User:alice",
            "*",
            AclOperation.READ,
            AclBinding.Permission.ALLOW);
    assertEquals(java.util.Map.of(id, expected), img[0].acls());

    CreateAclsResponse again = create(img, acl("TOPIC", "orders", "read", "allow"));
    assertEquals(id, again.getResults(0).getId(), "the same ACL again: its id, no second copy");
    assertEquals(1, img[0].acls().size());
  }

  @Test
  void everyBadAclIsRefusedWithItsReasonAndNothingIsStored() {
    MetadataImage[] img = {atLevel(MetadataVersion.ACLS)};
    Acl good = acl("TOPIC", "t", "WRITE", "ALLOW");
    List<Acl> bad =
        List.of(
            acl("TOPIC", "t", "FLY", "ALLOW"),
            acl("GROUP", "g", "WRITE", "ALLOW"),
            acl("CLUSTER", "other", "ALTER", "ALLOW"),
            acl("QUEUE", "t", "READ", "ALLOW"),
            acl("TOPIC", "", "READ", "ALLOW"),
            acl("TOPIC", "t", "READ", "MAYBE"),
            good.toBuilder().setPrincipal("alice").build(),
            good.toBuilder().setHost("example.com").build(),
            good.toBuilder().setPatternType("MATCH").build());
    List<String> reasons =
        List.of(
            "unknown operation 'FLY'",
            "operation WRITE is not valid for resource type GROUP",
            "a CLUSTER resource is the LITERAL name 'kafka-cluster'",
            "unknown resource type 'QUEUE'",
            "resource name is empty",
            "unknown permission 'MAYBE'",
            "principal 'alice' is not Type:name",
            "host 'example.com' is not '*' or an IP address",
            "unknown pattern type 'MATCH'");
    CreateAclsResponse r = create(img, bad.toArray(new Acl[0]));
    for (int i = 0; i < bad.size(); i++) {
      CreateAclsResponse.Result res = r.getResults(i);
      assertEquals(ErrorCode.INVALID_ACL, res.getErrorCode(), res.toString());
      assertTrue(
          res.getErrorMessage().startsWith(reasons.get(i)),
          res.getErrorMessage() + " / " + reasons.get(i));
    }
    assertTrue(img[0].acls().isEmpty());
  }

  @Test
  void belowLevel5AclsAreRefusedAndReplayRefusesTheRecord() {
    MetadataImage[] img = {atLevel(MetadataVersion.REASSIGNMENT)};
    CreateAclsResponse r = create(img, acl("TOPIC", "t", "READ", "ALLOW"));
    assertEquals(ErrorCode.INVALID_REQUEST, r.getResults(0).getErrorCode());
    MetadataImage after =
        MetadataApplier.replay(
            img[0],
            MetadataBatch.newBuilder()
                .addRecords(
                    Records.acl(
                        "id-1",
                        new AclBinding(
                            AclResourceType.TOPIC,
                            "t",
                            AclBinding.PatternType.LITERAL,
                            "User:a",
                            "*",
                            AclOperation.READ,
                            AclBinding.Permission.ALLOW)))
                .build(),
            9);
    assertTrue(after.acls().isEmpty());
  }

  @Test
  void aHostileRecordIsRefusedOnReplay() {
    MetadataImage img = atLevel(MetadataVersion.ACLS);
    var rec =
        Records.acl(
            "id-1",
            new AclBinding(
                AclResourceType.GROUP,
                "g",
                AclBinding.PatternType.LITERAL,
                "User:a",
                "*",
                AclOperation.WRITE,
                AclBinding.Permission.ALLOW));
    RecordResult refused = dev.spool.quorum.image.RecordChecks.check(rec);
    assertEquals(ErrorCode.INVALID_ACL, refused.getErrorCode());
    MetadataImage after =
        MetadataApplier.replay(img, MetadataBatch.newBuilder().addRecords(rec).build(), 5);
    assertTrue(after.acls().isEmpty());
    MetadataImage removed =
        MetadataApplier.replay(
            img, MetadataBatch.newBuilder().addRecords(Records.removeAcl("nope")).build(), 6);
    assertEquals(img.acls(), removed.acls());
  }

  @Test
  void aDeletionFilterRemovesWhatItMatchesAndSnapshotsKeepTheRest() {
    MetadataImage[] img = {atLevel(MetadataVersion.ACLS)};
    create(
        img,
        acl("TOPIC", "a", "READ", "ALLOW"),
        acl("TOPIC", "b", "READ", "ALLOW"),
        acl("GROUP", "g", "READ", "ALLOW"),
        acl("CLUSTER", "kafka-cluster", "ALTER", "DENY"));
    assertEquals(4, img[0].acls().size());
    MetadataImage restored = ImageSnapshots.fromSnapshot(ImageSnapshots.toSnapshot(img[0]));
    assertEquals(img[0], restored);

    Decision d =
        AclDecisions.delete(
            DeleteAclsRequest.newBuilder()
                .addFilters(AclFilter.newBuilder().setResourceType("TOPIC"))
                .addFilters(AclFilter.newBuilder().setPermission("DENY"))
                .addFilters(AclFilter.newBuilder().setOperation("NOPE"))
                .build(),
            img[0]);
    DeleteAclsResponse r = d.reply().getDeleteAcls();
    assertEquals(2, r.getResults(0).getMatchesCount());
    assertEquals(1, r.getResults(1).getMatchesCount());
    assertEquals(ErrorCode.INVALID_ACL, r.getResults(2).getErrorCode());
    MetadataImage after = apply(img[0], d);
    assertEquals(1, after.acls().size());
    assertEquals(AclResourceType.GROUP, after.acls().values().iterator().next().resourceType());
  }
}
