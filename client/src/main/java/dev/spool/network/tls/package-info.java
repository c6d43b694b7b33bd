/**
 * TLS for every Spool connection: the {@code ssl.*} keys (Kafka's names and defaults) that the
 * clients and the node share ({@link dev.spool.network.tls.SslConfig}), and the Netty {@code
 * SslContext}s built from them ({@link dev.spool.network.tls.SslContexts}), which fail with the key
 * named when key or trust material cannot be used.
 */
package dev.spool.network.tls;
