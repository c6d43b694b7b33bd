/**
 * Request handlers, one {@code *Handler} per API, registered on the {@link
 * dev.spool.broker.network.RequestDispatcher} by {@link dev.spool.broker.Broker}. Each runs on a
 * Netty event loop and never blocks: partition work goes to the partition's owner worker through
 * {@link dev.spool.broker.replication.ReplicaManager}, admin work to the quorum, and the returned
 * future completes the response. Every error carries a human-readable message;
 * NOT_LEADER_OR_FOLLOWER and FENCED_LEADER_EPOCH carry a LeaderHint with the leader's endpoint.
 */
package dev.spool.broker.request;
