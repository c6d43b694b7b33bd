package dev.spool.quorum.image;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.UnknownFieldSet;
import dev.spool.common.ErrorCode;
import dev.spool.quorum.message.MetadataRecord;
import dev.spool.quorum.message.MetadataSnapshot;
import dev.spool.quorum.message.RecordResult;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * FeatureLevelRecord on replay and in snapshots, the broker range in registrations, and a record
 * type this build does not know (docs/architecture.md#versioned-metadata).
 */
@Tag("unit")
class FeatureLevelRecordTest {

  private static RecordResult apply(ImageBuilder b, MetadataRecord r) {
    return MetadataApplier.apply(b, r, 5);
  }

  @Test
  void aLevelIsAppliedRaisedAndNeverLowered() {
    ImageBuilder b = new ImageBuilder(MetadataImage.EMPTY);
    assertEquals(MetadataVersion.UNSET, b.build(1).metadataVersion());
    assertEquals(MetadataApplier.OK, apply(b, Records.featureLevel(MetadataVersion.FEATURE, 1)));
    assertEquals(MetadataApplier.OK, apply(b, Records.featureLevel(MetadataVersion.FEATURE, 2)));
    assertEquals(MetadataApplier.OK, apply(b, Records.featureLevel(MetadataVersion.FEATURE, 2)));
    RecordResult down = apply(b, Records.featureLevel(MetadataVersion.FEATURE, 1));
    assertEquals(ErrorCode.INVALID_UPDATE_VERSION, down.getErrorCode());
    assertEquals(2, b.build(6).metadataVersion());
  }

  @Test
  void anUnknownFeatureOrALevelBelowOneIsRefused() {
    ImageBuilder b = new ImageBuilder(MetadataImage.EMPTY);
    assertEquals(
        ErrorCode.INVALID_RECORD,
        apply(b, Records.featureLevel("kraft.version", 1)).getErrorCode());
    assertEquals(
        ErrorCode.INVALID_RECORD,
        apply(b, Records.featureLevel(MetadataVersion.FEATURE, 0)).getErrorCode());
    assertEquals(MetadataImage.EMPTY.withOffset(5), b.build(5));
  }

  @Test
  void aBadRegistrationRangeIsRefused() {
    ImageBuilder b = new ImageBuilder(MetadataImage.EMPTY);
    MetadataRecord bad =
        Records.registerBroker(1, "i", "h", 9000, "", null, 0).toBuilder()
            .setRegisterBroker(
                Records.registerBroker(1, "i", "h", 9000, "", null, 0)
                    .getRegisterBroker()
                    .toBuilder()
                    .setMinMetadataVersion(3)
                    .setMaxMetadataVersion(1))
            .build();
    assertEquals(ErrorCode.INVALID_REQUEST, apply(b, bad).getErrorCode());
    assertEquals(0, b.build(5).brokers().size());
  }

  @Test
  void theLevelAndBrokerRangesSurviveASnapshot() throws Exception {
    ImageFixture fx = new ImageFixture();
    fx.apply(Records.featureLevel(MetadataVersion.FEATURE, 2));
    fx.apply(
        Records.registerBroker(1, "i1", "h1", 9001, "", null, new MetadataVersion.Range(1, 3), 0));
    fx.apply(Records.registerBroker(2, "i2", "h2", 9002, "", null, 0));
    MetadataImage img = fx.image();
    MetadataSnapshot snap = ImageSnapshots.toSnapshot(img);
    assertEquals(
        MetadataRecord.RecordCase.FEATURE_LEVEL,
        snap.getBatch().getRecords(0).getRecordCase(),
        "the level comes first");
    MetadataImage loaded =
        ImageSnapshots.fromSnapshot(MetadataSnapshot.parseFrom(snap.toByteArray()));
    assertEquals(img, loaded);
    assertEquals(2, loaded.metadataVersion());
    assertEquals(new MetadataVersion.Range(1, 3), loaded.broker(1).metadataVersions());
    assertEquals(new MetadataVersion.Range(1, 1), loaded.broker(2).metadataVersions());
  }

  @Test
  void aRecordTypeThisBuildDoesNotKnowIsRefusedNotSkipped() throws Exception {
    // What a newer version's record looks like here: a oneof case number this build lacks.
    MetadataRecord fromTheFuture =
        MetadataRecord.parseFrom(
            MetadataRecord.newBuilder()
                .setUnknownFields(
                    UnknownFieldSet.newBuilder()
                        .addField(
                            999,
                            UnknownFieldSet.Field.newBuilder()
                                .addLengthDelimited(
                                    com.google.protobuf.ByteString.copyFromUtf8("x"))
                                .build())
                        .build())
                .build()
                .toByteArray());
    ImageBuilder b = new ImageBuilder(MetadataImage.EMPTY);
    RecordResult r = apply(b, fromTheFuture);
    assertEquals(ErrorCode.INVALID_RECORD, r.getErrorCode());
    assertEquals(
        "unknown metadata record type (field [999]); this node supports metadata.version 1..6",
        r.getErrorMessage());
  }

  @Test
  void anUnknownFieldOfAKnownRecordIsKeptAndIgnored() throws Exception {
    // A newer version's extra field on a record this build knows: proto3 keeps it, the record
    // applies as before.
    MetadataRecord withExtra =
        MetadataRecord.parseFrom(
            Records.featureLevel(MetadataVersion.FEATURE, 1).toBuilder()
                .setFeatureLevel(
                    Records.featureLevel(MetadataVersion.FEATURE, 1).getFeatureLevel().toBuilder()
                        .setUnknownFields(
                            UnknownFieldSet.newBuilder()
                                .addField(
                                    50, UnknownFieldSet.Field.newBuilder().addVarint(7).build())
                                .build()))
                .build()
                .toByteArray());
    ImageBuilder b = new ImageBuilder(MetadataImage.EMPTY);
    assertEquals(MetadataApplier.OK, apply(b, withExtra));
    assertEquals(1, b.build(5).metadataVersion());
  }
}
