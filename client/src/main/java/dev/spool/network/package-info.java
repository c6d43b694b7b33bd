/**
 * The wire client shared by the client library and broker-to-broker replication; not for
 * applications (they use {@code dev.spool.client}), and it may change without notice. {@link
 * dev.spool.network.NetworkClient} keeps one connection per node and runs every request through it;
 * answers arrive as {@link dev.spool.network.ClientResponse}s. It sits below the client library (it
 * imports nothing of {@code dev.spool.client}) so that the broker's replica fetcher can use it
 * without depending on the library's internals; the architecture tests hold both sides to that.
 *
 * <p>What this side assumes of the broker (the protocol's {@code protocol.proto} is the contract;
 * these are the points where its comments leave room):
 *
 * <ul>
 *   <li>The first request on every connection is ApiVersions v0; the broker answers it (with its
 *       ranges, and {@code error_code} set when it refuses) before anything else. The client picks,
 *       per API, the highest version both sides support; a request for an API without a common
 *       version fails with UNSUPPORTED_VERSION locally, without being sent.
 *   <li>Responses on one connection come in request order, each echoing the request's correlation
 *       id. Anything else is a broken connection.
 *   <li>A header-level error ({@code ResponseHeader.error_code}) comes with an empty body.
 *   <li>A produce with {@code acks=0} gets no response at all.
 *   <li>Record data follows the body in the order of the {@code records_size} fields.
 * </ul>
 *
 * Connection problems fail requests with BROKER_NOT_AVAILABLE (retriable, refresh metadata), as
 * does a request whose connection never became ready by its deadline; a written but unanswered
 * request fails with REQUEST_TIMED_OUT at its deadline and closes its connection. Connections and
 * their futures live on the client's single I/O thread.
 */
package dev.spool.network;
