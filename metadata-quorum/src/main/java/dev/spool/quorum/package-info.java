/**
 * The metadata quorum's public API: {@link dev.spool.quorum.QuorumServer} (the controller role, one
 * voter of the Raft group), {@link dev.spool.quorum.QuorumClient} (a broker's or admin tool's
 * connection to the quorum), their settings and {@link dev.spool.quorum.QuorumConfig}, the module's
 * one set of configuration keys. The design is described in {@code metadata-quorum/README.md}.
 *
 * <p>Only {@code dev.spool.quorum.ratis} knows Ratis (enforced by {@code ArchitectureTest}).
 */
package dev.spool.quorum;
