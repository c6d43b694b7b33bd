/**
 * The common layer: the types every Spool module shares. {@link dev.spool.common.TopicPartition},
 * the error codes ({@link dev.spool.common.ErrorCode}, its flags in {@link
 * dev.spool.common.Errors}) and the exception that carries them ({@link
 * dev.spool.common.SpoolException}, which the client library throws to applications), the injected
 * {@link dev.spool.common.Clock} (and {@link dev.spool.common.ManualClock} for tests and
 * simulations), and {@link dev.spool.common.HostPort}, the one parser of {@code host:port}
 * addresses.
 *
 * <p>This package depends on the JDK and, for the generated {@code ErrorCode}, on protobuf's
 * runtime; on nothing else of Spool (an architecture test enforces it). It lives in the client
 * module because that is the bottom module every other one depends on; the record format, the
 * protocol, the quorum and the broker use it without using the client library.
 *
 * <p>{@code ErrorCode} is generated from its own {@code spool/errors.proto} (proto package {@code
 * spool.common}) rather than written by hand: its numbers are on the wire in two protocols (the
 * client protocol in {@code protocol.proto}, the broker-quorum protocol in {@code
 * controller.proto}, both import it), so protobuf messages keep a typed {@code ErrorCode} field
 * with no conversion at any boundary, protoc checks the numbers are unique, and there is no second
 * copy of the list to drift. Moving the enum out of {@code protocol.proto} changed its proto type
 * name, not its numbers: enum values travel as numbers, so the wire format is unchanged. Numbers
 * are never reused.
 */
package dev.spool.common;
