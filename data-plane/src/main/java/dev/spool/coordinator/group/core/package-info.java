/**
 * The group coordinator's pure core: the state of every group of one {@code __consumer_offsets}
 * partition ({@link dev.spool.coordinator.group.core.GroupShard}), the KIP-848 reconciliation
 * ({@link dev.spool.coordinator.group.core.Reconciliation}), and the records that carry every
 * change ({@link dev.spool.coordinator.group.core.GroupRecords}).
 *
 * <p>Rules: state changes only by replaying records ({@link
 * dev.spool.coordinator.group.core.ConsumerGroup#replay}), on the write path exactly as when a
 * partition is loaded, so a new coordinator rebuilds exactly what the old one had committed.
 * Operations take {@code nowMs} and a view of the topics; timers are requested through {@link
 * dev.spool.coordinator.group.core.CoordinatorTimers}. No threads, sockets, files or clocks: the
 * runtime confines a shard to one thread (docs/threads.md#group-coordinator).
 */
package dev.spool.coordinator.group.core;
