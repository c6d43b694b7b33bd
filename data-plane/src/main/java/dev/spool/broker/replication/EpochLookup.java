package dev.spool.broker.replication;

/**
 * A log's leader-epoch history as the divergence logic needs it (the storage engine's leader-epoch
 * cache implements it): the largest epoch at or below {@code epoch} and where it ends.
 */
@FunctionalInterface
public interface EpochLookup {
  EpochEndOffset endOffsetFor(int epoch);
}
