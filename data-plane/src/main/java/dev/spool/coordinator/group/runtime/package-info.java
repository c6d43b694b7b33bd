/**
 * The group coordinator on a broker: {@link dev.spool.coordinator.group.runtime.GroupCoordinator}
 * (the protocol-neutral entry point), one {@link dev.spool.coordinator.group.runtime.ShardRuntime}
 * per {@code __consumer_offsets} partition this broker leads, and the loader that replays a
 * partition into its shard.
 *
 * <p>Rules (docs/architecture.md#group-coordinator, docs/threads.md#group-coordinator): a shard
 * lives on the owner worker of its partition, like the partition itself; it exists only while this
 * broker leads the partition (created on becoming leader, dropped on losing it); every change is a
 * record appended as leader with acks=all; an answer is sent only once everything the shard wrote
 * before it is committed (the high watermark passed it), so no answer reveals state a failover
 * could lose; a write that fails makes the shard reload from its log (the log is the truth).
 */
package dev.spool.coordinator.group.runtime;
