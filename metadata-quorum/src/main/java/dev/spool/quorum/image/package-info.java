/**
 * The metadata image and its replay: a pure core shared by controllers and brokers. {@link
 * dev.spool.quorum.image.MetadataApplier} applies metadata records (metadata.proto) to an {@link
 * dev.spool.quorum.image.ImageBuilder}, checking each record's preconditions; the frozen {@link
 * dev.spool.quorum.image.MetadataImage} is immutable and safe on any thread; {@link
 * dev.spool.quorum.image.MetadataDelta} lists what changed; {@link
 * dev.spool.quorum.image.ImageSnapshots} writes an image as records and reads it back. No threads,
 * clocks, randomness or I/O here.
 */
package dev.spool.quorum.image;
