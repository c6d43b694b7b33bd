/**
 * Leader discovery: the metadata cache ({@link dev.spool.client.internal.metadata.Metadata}, pure
 * rules: epochs never go back, KIP-951 leader hints apply at once, unknown topics are reported
 * after three lookups) and its refresher on the I/O thread.
 *
 * <p>Assumptions about the broker: a Metadata request with an explicit topic list answers every
 * listed topic (UNKNOWN_TOPIC_OR_PARTITION when it does not exist); an empty list without {@code
 * all_topics} answers brokers only; {@code metadata_offset} is the Raft index the answering broker
 * has applied, comparable across brokers (a lower one never replaces the broker list); a
 * partition's {@code leader_epoch} grows on every leader change; {@code topic_id} changes when a
 * topic is deleted and created again (then epochs restart and are accepted).
 */
package dev.spool.client.internal.metadata;
