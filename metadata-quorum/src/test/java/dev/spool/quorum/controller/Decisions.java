package dev.spool.quorum.controller;

import dev.spool.quorum.QuorumConfig;
import dev.spool.quorum.image.ImageFixture;
import dev.spool.quorum.message.ControllerReply;
import dev.spool.quorum.message.RecordResult;
import java.util.List;

/** Test helper: commits a decision to a fixture the way the state machine does. */
final class Decisions {
  /** The keys' defaults: a controller of this build (metadata.version 1..3). */
  static final ControllerSettings SETTINGS = QuorumConfig.defaultControllerSettings();

  private Decisions() {}

  static ControllerReply commit(ImageFixture fx, Decision d) {
    List<RecordResult> results = fx.apply(d.batch().getRecordsList());
    return ReplyFinisher.finish(d.toEntry(), results, fx.image(), fx.image().offset());
  }
}
