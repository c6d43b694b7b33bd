/**
 * Server-side partition assignors (KIP-848): pure functions from the group's members, their
 * subscriptions and current target assignment, and the partition counts of the subscribed topics,
 * to a new target assignment. {@link dev.spool.coordinator.group.assignor.UniformAssignor} balances
 * and keeps partitions where they are (a join or leave moves only what it must); {@link
 * dev.spool.coordinator.group.assignor.RangeAssignor} gives each member contiguous ranges of every
 * topic (co-partitioned topics line up). No threads, no I/O; deterministic for the same input.
 */
package dev.spool.coordinator.group.assignor;
