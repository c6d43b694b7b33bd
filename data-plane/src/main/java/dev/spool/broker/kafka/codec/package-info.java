/**
 * The Kafka listener's codec: the only package that imports kafka-clients (an ArchUnit rule in
 * {@code DataPlaneBoundariesTest} keeps it so).
 *
 * <p>Why kafka-clients' generated message classes rather than classes generated here from Kafka's
 * JSON schemas: the jar already holds a reader and writer for every version of every schema,
 * flexible versions and tagged fields included, kept correct by Kafka's own tests and used by
 * Kafka's clients (the peer of every answer this listener gives). A generator of our own would be a
 * second copy of that code to keep in step. The price is that these classes are not public API and
 * move between releases (the record classes moved to an internal package in 4.3), so the version is
 * pinned exactly in the root pom and every use sits here, behind Spool-typed translators ({@code
 * *Codec}): a Kafka upgrade touches this package only. The generated readers check every length and
 * count against the bytes left in the frame, which is what keeps a hostile request from allocating
 * beyond its frame.
 *
 * <p>Record data is never copied through these classes on the fetch path: answers are written by
 * {@link dev.spool.broker.kafka.codec.KafkaResponse} with each partition's records as a file region
 * of the segment ({@link dev.spool.broker.kafka.codec.RegionRecords}), so they go from the page
 * cache to the socket by sendfile, as on Spool's own protocol.
 *
 * <p>Threads: stateless translators; the connections' event loops and the handlers' completion
 * threads.
 */
package dev.spool.broker.kafka.codec;
