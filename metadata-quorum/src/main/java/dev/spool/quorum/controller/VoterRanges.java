package dev.spool.quorum.controller;

import dev.spool.quorum.image.MetadataVersion;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * The voters of the quorum's current Raft configuration and the metadata.version range each one
 * reported to the active controller (docs/architecture.md#versioned-metadata), for {@link
 * FeatureDecisions}: a controller-only voter never registers as a broker, so this is how the active
 * controller knows what it supports. Pure data.
 *
 * @param voters the node ids of the current voters (the active controller among them)
 * @param reported the range a voter last reported, or null when it has not reported one to this
 *     active controller yet
 */
public record VoterRanges(Set<Integer> voters, IntFunction<MetadataVersion.Range> reported) {
  /** No voter known: only the active controller's own range and the brokers' are checked. */
  public static final VoterRanges NONE = new VoterRanges(Set.of(), id -> null);

  public VoterRanges {
    voters = Set.copyOf(voters);
  }
}
