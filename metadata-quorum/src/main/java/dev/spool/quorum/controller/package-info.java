/**
 * Controller decisions as pure functions (request or tick, image, settings, {@code nowMs} or a
 * seeded random in; records and a reply out): {@link dev.spool.quorum.controller.RequestDecider}
 * for requests, {@link dev.spool.quorum.controller.ClusterDuties} for the periodic duties, {@link
 * dev.spool.quorum.controller.PartitionChangeBuilder} for leader/ISR repair, {@link
 * dev.spool.quorum.controller.PartitionPlacer} for placement. {@link
 * dev.spool.quorum.controller.ActiveController} runs the duties and heartbeats on one thread per
 * Raft term; {@link dev.spool.quorum.controller.MetadataFeed} serves brokers the recent batches.
 */
package dev.spool.quorum.controller;
