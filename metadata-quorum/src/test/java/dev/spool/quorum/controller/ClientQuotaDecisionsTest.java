package dev.spool.quorum.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ClientQuotaEntity;
import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.AlterClientQuotasRequest;
import dev.spool.protocol.message.AlterClientQuotasResponse;
import dev.spool.quorum.image.ImageSnapshots;
import dev.spool.quorum.image.MetadataApplier;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.image.RecordChecks;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.MetadataBatch;
import dev.spool.quorum.message.RecordResult;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * AlterClientQuotas decisions and ClientQuotaRecord: keys are set and removed per entity, every
 * kind of bad entry is refused INVALID_REQUEST with its reason and no record, a hostile record is
 * refused on replay, below metadata.version 6 nothing is stored, and quotas survive a snapshot.
 */
@Tag("unit")
class ClientQuotaDecisionsTest {
  private static MetadataImage atLevel(int level) {
    return MetadataApplier.replay(
        MetadataImage.EMPTY,
        MetadataBatch.newBuilder()
            .addRecords(Records.featureLevel(MetadataVersion.FEATURE, level))
            .build(),
        1);
  }

  private static AlterClientQuotasRequest.Entry entry(
      String user, String clientId, AlterClientQuotasRequest.Op... ops) {
    var e = dev.spool.protocol.message.ClientQuotaEntity.newBuilder();
    if (user != null) {
      e.setUser(user);
    }
    if (clientId != null) {
      e.setClientId(clientId);
    }
    return AlterClientQuotasRequest.Entry.newBuilder()
        .setEntity(e)
        .addAllOps(java.util.List.of(ops))
        .build();
  }

  private static AlterClientQuotasRequest.Op set(String key, double value) {
    return AlterClientQuotasRequest.Op.newBuilder().setKey(key).setValue(value).build();
  }

  private static AlterClientQuotasRequest.Op remove(String key) {
    return AlterClientQuotasRequest.Op.newBuilder().setKey(key).setRemove(true).build();
  }

  private static AlterClientQuotasResponse alter(
      MetadataImage[] img, AlterClientQuotasRequest.Entry... entries) {
    Decision d =
        ClientQuotaDecisions.alter(
            AlterClientQuotasRequest.newBuilder().addAllEntries(java.util.List.of(entries)).build(),
            img[0]);
    img[0] = MetadataApplier.replay(img[0], d.batch(), img[0].offset() + 1);
    return d.reply().getAlterClientQuotas();
  }

  @Test
  void keysAreSetAndRemovedPerEntityAndSurviveASnapshot() {
    MetadataImage[] img = {atLevel(MetadataVersion.CLIENT_QUOTAS)};
    AlterClientQuotasResponse r =
        alter(
            img,
            entry("alice", null, set("producer_byte_rate", 1024), set("consumer_byte_rate", 2048)),
            entry("<default>", "app", set("request_percentage", 250)), // 2.5 threads
            entry(null, "<default>", set("producer_byte_rate", 10)));
    r.getResultsList().forEach(x -> assertEquals(ErrorCode.NONE, x.getErrorCode(), x.toString()));
    assertEquals(
        Map.of("producer_byte_rate", 1024.0, "consumer_byte_rate", 2048.0),
        img[0].clientQuotas().get(new ClientQuotaEntity("alice", null)));
    assertEquals(3, img[0].clientQuotas().size());
    var builder = new dev.spool.quorum.image.ImageBuilder(atLevel(MetadataVersion.CLIENT_QUOTAS));
    MetadataApplier.apply(
        builder,
        MetadataBatch.newBuilder()
            .addRecords(
                Records.clientQuota(new ClientQuotaEntity("bob", null), "producer_byte_rate", 5.0))
            .build(),
        2);
    assertTrue(
        builder.delta(2, false).clientQuotasChanged() && !builder.delta(2, false).isEmpty(),
        "a broker publishes an image whose only change is a quota");
    assertEquals(img[0], ImageSnapshots.fromSnapshot(ImageSnapshots.toSnapshot(img[0])));

    alter(img, entry("alice", null, remove("producer_byte_rate"), remove("request_percentage")));
    assertEquals(
        Map.of("consumer_byte_rate", 2048.0),
        img[0].clientQuotas().get(new ClientQuotaEntity("alice", null)));
    alter(img, entry("alice", null, remove("consumer_byte_rate")));
    assertTrue(
        !img[0].clientQuotas().containsKey(new ClientQuotaEntity("alice", null)),
        "an entity without keys is gone");
  }

  @Test
  void badEntriesAreRefusedWholeWithTheirReason() {
    MetadataImage[] img = {atLevel(MetadataVersion.CLIENT_QUOTAS)};
    AlterClientQuotasResponse r =
        alter(
            img,
            entry("alice", null, set("producer_byte_rate", 10), set("bytes_per_fortnight", 1)),
            entry("alice", null, set("producer_byte_rate", -5)),
            entry("alice", null, set("consumer_byte_rate", 0)),
            entry("alice", null, set("consumer_byte_rate", Double.NaN)),
            entry("", null, set("producer_byte_rate", 1)),
            entry("bad\nname", null, set("producer_byte_rate", 1)),
            entry(null, null, set("producer_byte_rate", 1)),
            entry("alice", null, set("producer_byte_rate", 1), remove("producer_byte_rate")),
            entry("x".repeat(256), null, set("producer_byte_rate", 1)),
            // request_percentage is a share of threads: any finite value above 0 (over 100 is
            // more than one thread), nothing else.
            entry("alice", null, set("request_percentage", Double.POSITIVE_INFINITY)),
            entry("alice", null, set("request_percentage", -0.5)),
            entry("alice", null, set("request_percentage", Double.NaN)));
    String[] reasons = {
      "unknown client quota key 'bytes_per_fortnight'",
      "must be a finite number above 0, not -5.0",
      "above 0, not 0.0",
      "not NaN",
      "the user is empty",
      "has control characters",
      "names a user, a client id or both",
      "named twice",
      "longer than 255 characters",
      "not Infinity",
      "not -0.5",
      "request_percentage must be a finite number above 0, not NaN"
    };
    for (int i = 0; i < reasons.length; i++) {
      assertEquals(ErrorCode.INVALID_REQUEST, r.getResults(i).getErrorCode(), "entry " + i);
      assertTrue(
          r.getResults(i).getErrorMessage().contains(reasons[i]),
          r.getResults(i).getErrorMessage());
    }
    assertTrue(img[0].clientQuotas().isEmpty(), "nothing of a refused entry is stored");
  }

  @Test
  void validateOnlyAndAnOldLevelStoreNothing() {
    MetadataImage img = atLevel(MetadataVersion.CLIENT_QUOTAS);
    Decision d =
        ClientQuotaDecisions.alter(
            AlterClientQuotasRequest.newBuilder()
                .setValidateOnly(true)
                .addEntries(entry("alice", null, set("producer_byte_rate", 1)))
                .build(),
            img);
    assertEquals(0, d.batch().getRecordsCount());
    assertEquals(ErrorCode.NONE, d.reply().getAlterClientQuotas().getResults(0).getErrorCode());

    MetadataImage old = atLevel(MetadataVersion.ACLS);
    Decision below =
        ClientQuotaDecisions.alter(
            AlterClientQuotasRequest.newBuilder()
                .addEntries(entry("alice", null, set("producer_byte_rate", 1)))
                .build(),
            old);
    assertEquals(0, below.batch().getRecordsCount());
    assertTrue(
        below
            .reply()
            .getAlterClientQuotas()
            .getResults(0)
            .getErrorMessage()
            .contains("need metadata.version 6"));
    var rec = Records.clientQuota(new ClientQuotaEntity("alice", null), "producer_byte_rate", 1.0);
    MetadataImage replayed =
        MetadataApplier.replay(old, MetadataBatch.newBuilder().addRecords(rec).build(), 5);
    assertTrue(replayed.clientQuotas().isEmpty(), "replay below level 6 refuses the record");
  }

  @Test
  void aHostileRecordIsRefusedOnReplay() {
    MetadataImage img = atLevel(MetadataVersion.CLIENT_QUOTAS);
    var rec = Records.clientQuota(new ClientQuotaEntity("alice", null), "producer_byte_rate", -1.0);
    RecordResult refused = RecordChecks.check(rec);
    assertEquals(ErrorCode.INVALID_REQUEST, refused.getErrorCode());
    var unknown = Records.clientQuota(new ClientQuotaEntity(null, "c"), "nope", 5.0);
    assertEquals(ErrorCode.INVALID_REQUEST, RecordChecks.check(unknown).getErrorCode());
    MetadataImage after =
        MetadataApplier.replay(
            img, MetadataBatch.newBuilder().addRecords(rec).addRecords(unknown).build(), 5);
    assertTrue(after.clientQuotas().isEmpty());
  }
}
